// The profile stage: untimed extra runs that explain a speedup — memory over time and a sampled
// profile of call stacks (one run per side: memory-and-stacks.ts), Top-Down level 1, and
// cachegrind's noise-free counts per function. Nothing here can change a verdict or the speedup: a
// part that fails or is unsupported becomes a note. The baseline's parts are the same for every
// judging on a host, so they come from a cache after the first (baseline-profile-cache.ts). How
// long each part took is in the stage's partsMs (the cost bench: bench/judge.ts profile). The
// deterministic part (deterministic-counts.ts) runs beside the runs where the host has a CPU for it.
import path from 'node:path';
import {
  topdownSchema,
  type ProfileParts,
  type ProfileStage,
  type RunPolicy,
  type Toolchain,
  type Topdown,
} from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { readCapped } from '../measure/cachegrind';
import { findPerf } from '../measure/perf-stat';
import { detectTopdownSupport, parseTopdown, topdownArgs } from '../measure/topdown';
import { cpuVendor } from '../host/fingerprint';
import { runProgram } from '../sandbox/run-program';
import type { PlatformCapabilities } from '../platform';
import type { Sandbox } from '../sandbox/sandbox';
import { cachedBaselineProfile } from './baseline-profile-cache';
import { cpuBeside, deterministicCounts } from './deterministic-counts';
import { memoryAndStacks } from './memory-and-stacks';
import type { GeneratedInput } from '../../lib/core/challenge/inputs';

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
  /** The baseline's timed median: sets the sampling rate of long runs (samplingHz). */
  timedMedianMs?: number;
  dataDir: string;
  workDir: string;
  cpu: number;
  policy: RunPolicy;
  /** Why cachegrind is left out although the manifest asks for it (JudgeOptions.cachegrindOff). */
  cachegrindOff?: string;
  onProgress: (fraction: number, message: string) => void;
  log: (line: string) => void;
  signal?: AbortSignal;
}

const TOPDOWN_FILE = '.topdown.csv';

const UNSUPPORTED = (part: string) => `${part}: not run, the target's platform does not have it`;

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
  const parts: ProfileParts = {};
  stage.partsMs = parts;
  const timed = async <T>(part: keyof ProfileParts, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      parts[part] = Math.round(performance.now() - started);
    }
  };

  // cachegrind's counts are simulated, so its rebuild and runs may go on beside the runs on the
  // judge CPU, on a CPU of another core; a host without one runs them afterwards, on the judge CPU.
  const notWanted = deterministicNotWanted(options);
  const beside = notWanted === null ? await cpuBeside(options.cpu) : null;
  let deterministic =
    beside === null ? null : timed('cachegrind', () => deterministicPart(options, beside));
  try {
    options.onProgress(0, 'memory over time and call stacks (one run per side)');
    await timed('memoryAndStacks', () => memoryAndStacks(options, stage));
    if (deterministic) {
      options.onProgress(0.3, 'cachegrind (deterministic mode), beside the runs');
      // Top-Down runs alone: its shares would move with a neighbour's use of the shared caches.
      await timed('cachegrindWait', () => deterministic!);
    }
    options.onProgress(0.35, 'Top-Down level 1');
    await topdownPart(options, stage, timed);
    if (notWanted !== null) stage.notes.push(notWanted);
    else if (!deterministic) {
      options.onProgress(0.4, 'cachegrind (deterministic mode)');
      deterministic = timed('cachegrind', () => deterministicPart(options, options.cpu));
    }
  } finally {
    // Never leave the rebuild running into the scratch folder's removal.
    const outcome = await deterministic;
    if (outcome && 'counts' in outcome) stage.deterministic = outcome.counts;
    else if (outcome) stage.notes.push(outcome.note);
  }
  if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
  options.log(
    `profile stage parts: ${Object.entries(parts)
      .map(([part, ms]) => `${part} ${(ms / 1000).toFixed(1)} s`)
      .join(', ')}${beside === null ? '' : ` (cachegrind on CPU ${beside}, beside the runs)`}`,
  );
  options.onProgress(1, 'profile done');
  return stage;
}

/** Why the deterministic mode does not run, or null when it does. */
function deterministicNotWanted(options: ProfileStageOptions): string | null {
  if (!options.challenge.manifest.inputs.deterministic.enabled)
    return 'deterministic mode (cachegrind) is turned off in the manifest';
  if (options.cachegrindOff !== undefined) return options.cachegrindOff;
  if (!options.parts.cachegrind) return UNSUPPORTED('deterministic mode (cachegrind)');
  return null;
}

/** The deterministic counts, or why there are none; never throws (the stage awaits it last). */
async function deterministicPart(
  options: ProfileStageOptions,
  cpu: number,
): Promise<{ counts: ProfileStage['deterministic'] } | { note: string }> {
  try {
    return { counts: await deterministicCounts(options, cpu) };
  } catch (error) {
    return { note: `deterministic mode failed: ${reason(error)}` };
  }
}

async function topdownPart(
  options: ProfileStageOptions,
  stage: ProfileStage,
  timed: (part: keyof ProfileParts, work: () => Promise<void>) => Promise<void>,
): Promise<void> {
  if (!options.parts.topDown) {
    stage.notes.push(UNSUPPORTED('Top-Down level 1'));
    return;
  }
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
