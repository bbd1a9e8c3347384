// The profile stage's deterministic part: both sides rebuilt with flags valgrind can decode, then
// one cachegrind run each. Its counts are simulated (instructions, cache and branch misses), so
// they do not depend on what else the host is doing: where the host has a CPU beside the judge's
// (not the judge CPU, not its SMT sibling), the whole part runs there while the judge CPU profiles
// memory and call stacks, instead of after them (profile-stage.ts). This is the stage's largest
// fixed cost (docs/profiles.md, "Cost"); beside the runs it is hidden behind them.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { cachegrindCountsSchema, hotspotsSchema, type ProfileStage } from '../../contracts';
import { buildChallengeTree, cachedBuild, solutionReuse } from '../build';
import { spawnExecutor, type CommandExecutor } from '../build/executor';
import { BUILD_ENV, sandboxedExecutor } from '../build/sandboxed-executor';
import { parseCpuList } from '../host/fingerprint';
import { deterministicFlagsFor, deterministicResult, runCachegrind } from '../measure/cachegrind';
import { ensureInput } from '../../lib/core/challenge/inputs';
import { cachedBaselineProfile } from './baseline-profile-cache';
import { takeBinary } from './binaries';
import type { ProfileStageOptions } from './profile-stage';

const CACHEGRIND_CACHE_SCHEMA = z.object({
  counts: cachegrindCountsSchema,
  hotspots: hotspotsSchema,
});

async function readText(file: string): Promise<string | null> {
  return readFile(file, 'utf8').catch(() => null);
}

/**
 * A CPU this process may use that shares no core with `judgeCpu` (neither it nor an SMT sibling):
 * work there leaves the judge CPU's runs their own core. Null on a host without one.
 */
export async function cpuBeside(judgeCpu: number): Promise<number | null> {
  const status = (await readText('/proc/self/status')) ?? '';
  const allowed = /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
  if (!allowed) return null;
  const siblings = await readText(
    `/sys/devices/system/cpu/cpu${judgeCpu}/topology/thread_siblings_list`,
  );
  const sameCore = new Set([judgeCpu, ...(siblings ? parseCpuList(siblings) : [])]);
  return parseCpuList(allowed).find((cpu) => !sameCore.has(cpu)) ?? null;
}

/** Runs the trusted build's commands (the baseline's, outside the sandbox) pinned to `cpu`. */
function pinnedExecutor(cpu: number): CommandExecutor {
  return (command, args, options) =>
    spawnExecutor('taskset', ['--cpu-list', String(cpu), command, ...args], options);
}

/** Both sides' counts on the manifest's deterministic input, with everything pinned to `cpu`. */
export async function deterministicCounts(
  options: ProfileStageOptions,
  cpu: number,
): Promise<ProfileStage['deterministic']> {
  const { challenge } = options;
  const { limits, inputs } = challenge.manifest;
  const flags = deterministicFlagsFor(options.toolchain);
  const buildStarted = performance.now();
  const { baseline, solutionBinary } = await deterministicBuilds(options, flags, cpu);
  options.log(
    `cachegrind: built for ${flags.join(' ')} in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s on CPU ${cpu}`,
  );
  const input = await ensureInput(
    challenge,
    {
      seed: inputs.deterministic.seed,
      sizeBytes: inputs.deterministic.size,
      rareSeparators: false,
    },
    options.dataDir,
  );
  const run = (binary: string) =>
    runCachegrind({
      sandbox: options.sandbox,
      binary,
      input: input.path,
      workDir: options.workDir,
      limits,
      cpu,
      signal: options.signal,
    });
  const cachedCounts = await cachedBaselineProfile({
    dataDir: options.dataDir,
    key: {
      kind: 'cachegrind',
      buildKey: baseline.key,
      inputSha256: input.sha256,
      settings: { limits, sandbox: options.sandbox.kind },
    },
    schema: CACHEGRIND_CACHE_SCHEMA,
    compute: () => run(baseline.binary),
  });
  if (cachedCounts.cached)
    options.log('baseline cachegrind counts: reused from an earlier judging');
  const baselineRun = cachedCounts.value;
  const solutionRun = await run(solutionBinary);
  options.log(
    `cachegrind: ${baselineRun.counts.instructions} vs ${solutionRun.counts.instructions} instructions`,
  );
  return deterministicResult({
    inputBytes: input.bytes,
    flags,
    baseline: baselineRun.counts,
    solution: solutionRun.counts,
    hotspots: { baseline: baselineRun.hotspots, solution: solutionRun.hotspots },
  });
}

/**
 * The baseline (cached like every baseline build) and the solution (in the sandbox, its binary
 * then taken out of its reach) with the deterministic flags; either failing ends the mode.
 */
async function deterministicBuilds(
  options: ProfileStageOptions,
  flags: string[],
  cpu: number,
): Promise<{ baseline: { key: string; binary: string }; solutionBinary: string }> {
  const { challenge } = options;
  const toolchain = { ...options.toolchain, flags };
  const baseline = await cachedBuild({
    challenge,
    sourceDir: challenge.templateDir,
    toolchain,
    solution: false,
    cacheRoot: path.join(options.dataDir, 'builds'),
    executor: pinnedExecutor(cpu),
    signal: options.signal,
  });
  if (!baseline.ok || !baseline.binary)
    throw new Error(`the baseline did not build with ${flags.join(' ')}`);
  const reuse = await solutionReuse({
    sandboxKind: options.sandbox.kind,
    challenge,
    toolchain,
    dataDir: options.dataDir,
    boxDir: options.boxDir,
    executor: pinnedExecutor(cpu),
    signal: options.signal,
  });
  const solution = await buildChallengeTree({
    challenge,
    sourceDir: options.solutionTree,
    toolchain,
    solution: true,
    outDir: path.join(options.boxDir, 'build-deterministic'),
    env: { ...BUILD_ENV },
    ...(reuse ? { reuse } : {}),
    executor: sandboxedExecutor({
      sandbox: options.sandbox,
      workDir: options.boxDir,
      readOnly: [
        { host: challenge.harnessDir, sandbox: challenge.harnessDir },
        ...(reuse?.mounts ?? []),
      ],
      limits: challenge.manifest.limits,
      cpu,
    }),
    signal: options.signal,
  });
  const solutionBinary =
    solution.ok && solution.binary
      ? await takeBinary(solution.binary, options.workDir, 'solution-deterministic')
      : null;
  if (!solutionBinary) throw new Error(`the solution did not build with ${flags.join(' ')}`);
  return { baseline: { key: baseline.key, binary: baseline.binary }, solutionBinary };
}
