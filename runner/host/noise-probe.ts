// The host's run-to-run noise, measured the judge's way: the challenge's baseline, built with the
// manifest's flags, run a handful of times in the sandbox pinned to the judge's CPU, with the time
// other tasks took on that CPU from the sandbox's own accounting of each run (its helper reads
// /proc/stat as the command starts and ends, as for every timed run of a judging).
import { UnavailableError } from '../../contracts';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { HostNoise } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { cachedBuild } from '../build';
import { ensureInput, warmPageCache } from '../../lib/core/challenge/inputs';
import { hostSandboxTarget } from '../platform';
import { runProgram } from '../sandbox/run-program';
import type { Sandbox } from '../sandbox/sandbox';
import { median, summarize } from '../../lib/core/stats/descriptive';
import { otherTasksMs } from '../../lib/core/stats/disturbance';

/** Seven timed runs of an 8 MiB input: a few seconds with the wordcount baseline. */
const NOISE_PROBE_RUNS = 7;
const NOISE_PROBE_INPUT_BYTES = 8 * 1024 * 1024;

export interface NoiseProbeOptions {
  challenge: Challenge;
  /** The host's Linux sandbox (the judge's runs go through it, so the probe's do too). */
  sandbox: Sandbox;
  dataDir: string;
  cpu: number;
  runs?: number;
  inputBytes?: number;
  /** Parent of the probe's scratch folder (default: the OS temp dir). */
  workRoot?: string;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/** One timed run's figures: wall and CPU time, and what the pinned CPU did for others meanwhile. */
export interface ProbeRun {
  wallMs: number;
  cpuMs: number;
  otherTasksMs: number;
  stealMs: number;
}

/** The noise figures of a series of runs (pure: tested on recorded series). */
export function summarizeNoise(
  runs: ProbeRun[],
  facts: { cpu: number; inputBytes: number; durationMs: number },
): HostNoise {
  const positive = (xs: number[]) => xs.map((x) => Math.max(x, 1e-3));
  const wall = summarize(positive(runs.map((r) => r.wallMs)));
  const cpuTime = summarize(positive(runs.map((r) => r.cpuMs)));
  return {
    cpu: facts.cpu,
    runs: runs.length,
    inputBytes: facts.inputBytes,
    medianWallMs: wall.median,
    wallCv: wall.cv,
    cpuTimeCv: cpuTime.cv,
    utilization: median(runs.map((r) => (r.wallMs > 0 ? r.cpuMs / r.wallMs : 0))),
    otherTasksMs: median(runs.map((r) => r.otherTasksMs)),
    stealMs: median(runs.map((r) => r.stealMs)),
    durationMs: facts.durationMs,
  };
}

export async function probeNoise(options: NoiseProbeOptions): Promise<HostNoise> {
  const started = performance.now();
  const { challenge, cpu } = options;
  const log = options.log ?? (() => undefined);
  const linux = hostSandboxTarget(challenge.manifest.targets);
  if (!linux)
    throw new UnavailableError(
      `challenge ${challenge.manifest.slug} has no Linux target to probe with`,
    );
  const runs = options.runs ?? NOISE_PROBE_RUNS;
  const inputBytes = options.inputBytes ?? NOISE_PROBE_INPUT_BYTES;

  // 1. The baseline, as the judge builds it (cached: the first judging reuses it).
  const baseline = await cachedBuild({
    challenge,
    sourceDir: challenge.templateDir,
    toolchain: linux.toolchain,
    solution: false,
    cacheRoot: path.join(options.dataDir, 'builds'),
    signal: options.signal,
  });
  if (!baseline.ok || !baseline.binary)
    throw new UnavailableError(
      `the baseline did not build: ${baseline.message ?? 'unknown error'}`,
    );
  log(`noise probe: baseline ${baseline.cached ? 'cached' : 'built'}; ${runs} runs on CPU ${cpu}`);

  // 2. A small input of the benchmark's kind, resident before the runs.
  const input = await ensureInput(
    challenge,
    { seed: 'perfjudge-noise-probe', sizeBytes: inputBytes, rareSeparators: false },
    options.dataDir,
  );
  await warmPageCache(input.path);

  // 3. One warm-up, then the timed runs.
  const work = await mkdtemp(path.join(options.workRoot ?? os.tmpdir(), 'perfjudge-noise-'));
  await chmod(work, 0o755);
  const measured: ProbeRun[] = [];
  try {
    for (let i = 0; i <= runs; i++) {
      if (options.signal?.aborted) throw new UnavailableError('cancelled');
      const run = await runProgram({
        sandbox: options.sandbox,
        binary: baseline.binary,
        input: input.path,
        workDir: work,
        limits: challenge.manifest.limits,
        wallTimeMs: challenge.manifest.limits.benchmarkRunSeconds * 1000,
        stdout: 'hash',
        cpu,
        signal: options.signal,
      });
      if (run.exitCode !== 0)
        throw new UnavailableError(
          `the baseline failed in the sandbox (${run.signal ?? `exit code ${run.exitCode}`}${run.limitExceeded ? `, ${run.limitExceeded} limit` : ''})`,
        );
      if (i === 0) continue; // the warm-up
      const observed = {
        wallMs: run.wallTimeMs,
        cpuMs: run.userTimeMs + run.sysTimeMs,
        cpuBusyMs: run.accounting?.cpuBusyMs ?? null,
        stealMs: run.accounting?.cpuStealMs ?? null,
        cpuMigrations: null,
        tickMs: run.accounting?.tickMs ?? null,
      };
      measured.push({
        wallMs: observed.wallMs,
        cpuMs: observed.cpuMs,
        // 0 where the sandbox cannot read the pinned CPU's accounting (as before: no /proc/stat row).
        otherTasksMs: otherTasksMs(observed) ?? 0,
        stealMs: observed.stealMs ?? 0,
      });
    }
  } finally {
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
  }
  return summarizeNoise(measured, { cpu, inputBytes, durationMs: performance.now() - started });
}
