// The profile stage: untimed extra runs that explain a speedup — memory over time and a sampled
// profile of call stacks (one run per side: memory-and-stacks.ts), Top-Down level 1, and
// cachegrind's noise-free counts per function. Nothing here can change a verdict or the speedup: a
// part that fails or is unsupported becomes a note. The baseline's parts are the same for every
// judging on a host, so they come from a cache after the first (baseline-profile-cache.ts). How
// long each part took is in the stage's partsMs (the cost bench: bench/judge.ts profile).
import path from 'node:path';
import { z } from 'zod';
import {
  cachegrindCountsSchema,
  hotspotsSchema,
  topdownSchema,
  type ProfileParts,
  type ProfileStage,
  type RunPolicy,
  type Toolchain,
  type Topdown,
} from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { buildChallengeTree, cachedBuild } from '../build';
import {
  deterministicFlagsFor,
  deterministicResult,
  readCapped,
  runCachegrind,
} from '../measure/cachegrind';
import { findPerf } from '../measure/perf-stat';
import { detectTopdownSupport, parseTopdown, topdownArgs } from '../measure/topdown';
import { cpuVendor } from '../host/fingerprint';
import { runProgram } from '../sandbox/run-program';
import type { PlatformCapabilities } from '../platform';
import type { Sandbox } from '../sandbox/sandbox';
import { cachedBaselineProfile } from './baseline-profile-cache';
import { memoryAndStacks } from './memory-and-stacks';
import { takeBinary } from './binaries';
import { ensureInput, type GeneratedInput } from '../../lib/core/challenge/inputs';
import { BUILD_PATH, sandboxedExecutor } from '../build/sandboxed-executor';

export interface ProfileStageOptions {
  /** What the target's platform can profile (runner/platform); a part it cannot is a note. */
  parts: Pick<PlatformCapabilities, 'memoryProfile' | 'topDown' | 'cachegrind'> & {
    /** perf record from outside the sandbox (Linux hosts). */
    sampledProfile: boolean;
  };
  challenge: Challenge;
  sandbox: Sandbox;
  toolchain: Toolchain;
  baselineBinary: string;
  /** The baseline's build key (cachedBuild): its profile runs are cached under it; '' never caches. */
  baselineBuildKey?: string;
  solutionBinary: string;
  /** The patched tree and the sandbox folder it lives in (for the deterministic rebuild). */
  solutionTree: string;
  boxDir: string;
  benchmarkInput: GeneratedInput;
  dataDir: string;
  workDir: string;
  cpu: number;
  policy: RunPolicy;
  onProgress: (fraction: number, message: string) => void;
  log: (line: string) => void;
  signal?: AbortSignal;
}

const TOPDOWN_FILE = '.topdown.csv';
const CACHEGRIND_CACHE_SCHEMA = z.object({
  counts: cachegrindCountsSchema,
  hotspots: hotspotsSchema,
});

function reason(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

export async function runProfile(options: ProfileStageOptions): Promise<ProfileStage> {
  const stage: ProfileStage = {
    memory: null,
    topdown: null,
    deterministic: null,
    sampled: null,
    notes: [],
  };
  const unsupported = (part: string) =>
    stage.notes.push(`${part}: not run, the target's platform does not have it`);

  const timed = async (part: keyof ProfileParts, work: () => Promise<void>) => {
    const started = performance.now();
    try {
      await work();
    } finally {
      parts[part] = Math.round(performance.now() - started);
    }
  };
  const parts: ProfileParts = {};
  stage.partsMs = parts;

  options.onProgress(0, 'memory over time and call stacks (one run per side)');
  await timed('memoryAndStacks', () => memoryAndStacks(options, stage));

  options.onProgress(0.35, 'Top-Down level 1');
  if (!options.parts.topDown) unsupported('Top-Down level 1');
  else
    await timed('topdown', async () => {
      try {
        const topdown = await topdownPerSide(options);
        if ('note' in topdown) stage.notes.push(topdown.note);
        else stage.topdown = topdown;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        stage.notes.push(`Top-Down failed: ${reason(error)}`);
      }
    });

  options.onProgress(0.4, 'cachegrind (deterministic mode)');
  const deterministic = options.challenge.manifest.inputs.deterministic;
  if (!deterministic.enabled) {
    stage.notes.push('deterministic mode (cachegrind) is turned off in the manifest');
  } else if (!options.parts.cachegrind) {
    unsupported('deterministic mode (cachegrind)');
  } else {
    await timed('cachegrind', async () => {
      try {
        stage.deterministic = await deterministicCounts(options);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        stage.notes.push(`deterministic mode failed: ${reason(error)}`);
      }
    });
  }
  options.log(
    `profile stage parts: ${Object.entries(parts)
      .map(([part, ms]) => `${part} ${(ms / 1000).toFixed(1)} s`)
      .join(', ')}`,
  );
  options.onProgress(1, 'profile done');
  return stage;
}

/**
 * One untimed `perf stat -M <group>` run per side, where the CPU has a level-1 metric group; the
 * baseline's is cached per host like its other profile runs.
 */
async function topdownPerSide(
  options: ProfileStageOptions,
): Promise<NonNullable<ProfileStage['topdown']> | { note: string }> {
  const perf = await findPerf();
  if (!perf) return { note: 'Top-Down level 1 unsupported: perf is not installed on this host' };
  const support = await detectTopdownSupport(perf);
  if (!support.group) return { note: `Top-Down level 1 ${support.reason}` };
  const vendor = await cpuVendor();
  const side = async (binary: string): Promise<Topdown> => {
    let text = '';
    await runProgram({
      sandbox: options.sandbox,
      binary,
      input: options.benchmarkInput.path,
      workDir: options.workDir,
      limits: options.challenge.manifest.limits,
      wallTimeMs: options.challenge.manifest.limits.benchmarkRunSeconds * 1000,
      stdout: 'hash',
      cpu: options.cpu,
      // perf opens its counters inside the sandbox: this untimed run (only) may call perf_event_open.
      allowSyscalls: ['perf_event_open'],
      wrap: (runDir, program) =>
        topdownArgs(perf, vendor, path.join(runDir, TOPDOWN_FILE), program)!,
      collect: async (runDir) => {
        // Written inside the run's folder (the program's uid could touch it): informational only.
        text = (await readCapped(path.join(runDir, TOPDOWN_FILE), 1 << 20)) ?? '';
      },
      signal: options.signal,
    });
    const parsed = parseTopdown(text, support.group);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.reading.topdown;
  };
  const baseline = await cachedBaselineProfile({
    dataDir: options.dataDir,
    key: {
      kind: 'topdown',
      buildKey: options.baselineBuildKey ?? '',
      inputSha256: options.benchmarkInput.sha256,
      settings: { limits: options.challenge.manifest.limits, group: support.group },
    },
    schema: topdownSchema,
    compute: () => side(options.baselineBinary),
  });
  if (baseline.cached) options.log('baseline Top-Down: reused from an earlier judging');
  return { baseline: baseline.value, solution: await side(options.solutionBinary) };
}

/** Both sides rebuilt with flags valgrind can decode, then one cachegrind run each. */
async function deterministicCounts(
  options: ProfileStageOptions,
): Promise<ProfileStage['deterministic']> {
  const { challenge } = options;
  const { limits, inputs } = challenge.manifest;
  const flags = deterministicFlagsFor(options.toolchain);
  const toolchain = { ...options.toolchain, flags };
  const buildStarted = performance.now();
  const { baseline, solutionBinary } = await deterministicBuilds(options, toolchain);
  options.log(
    `cachegrind: built for ${flags.join(' ')} in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s`,
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
      cpu: options.cpu,
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
 * then taken out of its reach) with the deterministic toolchain; either failing ends the mode.
 */
async function deterministicBuilds(
  options: ProfileStageOptions,
  toolchain: Toolchain,
): Promise<{ baseline: { key: string; binary: string }; solutionBinary: string }> {
  const { challenge } = options;
  const baseline = await cachedBuild({
    challenge,
    sourceDir: challenge.templateDir,
    toolchain,
    solution: false,
    cacheRoot: path.join(options.dataDir, 'builds'),
    signal: options.signal,
  });
  if (!baseline.ok || !baseline.binary)
    throw new Error(`the baseline did not build with ${toolchain.flags.join(' ')}`);
  const solution = await buildChallengeTree({
    challenge,
    sourceDir: options.solutionTree,
    toolchain,
    solution: true,
    outDir: path.join(options.boxDir, 'build-deterministic'),
    env: { PATH: BUILD_PATH, HOME: '/tmp', LC_ALL: 'C', TMPDIR: '/tmp' },
    executor: sandboxedExecutor({
      sandbox: options.sandbox,
      workDir: options.boxDir,
      readOnly: [{ host: challenge.harnessDir, sandbox: challenge.harnessDir }],
      limits: challenge.manifest.limits,
    }),
    signal: options.signal,
  });
  const solutionBinary =
    solution.ok && solution.binary
      ? await takeBinary(solution.binary, options.workDir, 'solution-deterministic')
      : null;
  if (!solutionBinary)
    throw new Error(`the solution did not build with ${toolchain.flags.join(' ')}`);
  return { baseline: { key: baseline.key, binary: baseline.binary }, solutionBinary };
}
