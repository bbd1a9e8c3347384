// Test helpers for judging real patches: small inputs, few pairs, caches shared across test files.
import type { JudgingResult, Limits, RunPolicy, TargetId } from '../../contracts';
import { loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';
import { cpuVendor } from '../../runner/host/fingerprint';
import { judge } from '../../runner/judge/judge';
import { TEST_DATA_DIR } from '../../dev/test-data-dir';
import { createSandbox } from '../../runner/sandbox';
import type { Sandbox } from '../../runner/sandbox/sandbox';

// Shared with the benchmarks (dev/); the judging tests take it from here, with judgeForTest.
export { TEST_DATA_DIR };

export interface TestJudgeOptions {
  /** The challenge's slug (default wordcount). */
  challenge?: string;
  limits?: Partial<Limits>;
  runPolicy?: Partial<RunPolicy>;
  benchmarkBytes?: number;
  publicBytes?: number | null;
  target?: TargetId;
  signal?: AbortSignal;
  onLog?: (line: string) => void;
  /** The host's memory bandwidth for the plausibility check (bytes/s); absent: no check. */
  memoryBandwidth?: number | null;
  /** False: no profile stage. */
  profile?: boolean;
  /**
   * False: the profile stage without its deterministic part (cachegrind: an -O3 rebuild of both
   * sides and a run each under valgrind, about half of an accepted judging here), as a manifest
   * with deterministic mode off would have it. For tests that need the profile stage's other runs.
   */
  deterministic?: boolean;
  /** The host's sandbox (default: bubblewrap, shared by every judging test). */
  sandbox?: Sandbox;
}

/** The wordcount challenge, optionally with tighter limits so limit tests end quickly. */
export function wordcountChallenge(limits: Partial<Limits> = {}): Promise<Challenge> {
  return challengeWithLimits('wordcount', limits);
}

/** A challenge with some limits tightened (the manifest on disk stays as it is). */
export async function challengeWithLimits(
  slug: string,
  limits: Partial<Limits> = {},
): Promise<Challenge> {
  const challenge = await loadChallenge(slug);
  return {
    ...challenge,
    manifest: { ...challenge.manifest, limits: { ...challenge.manifest.limits, ...limits } },
  };
}

const sandbox = createSandbox('bubblewrap');

function withoutDeterministicMode(challenge: Challenge): Challenge {
  const { inputs } = challenge.manifest;
  return {
    ...challenge,
    manifest: {
      ...challenge.manifest,
      inputs: { ...inputs, deterministic: { ...inputs.deterministic, enabled: false } },
    },
  };
}

export async function judgeForTest(
  patchText: string | Buffer,
  options: TestJudgeOptions = {},
): Promise<JudgingResult> {
  const loaded = await challengeWithLimits(options.challenge ?? 'wordcount', options.limits);
  const challenge = options.deterministic === false ? withoutDeterministicMode(loaded) : loaded;
  const target = options.target ?? 'linux-intel';
  return judge({
    challenge,
    target,
    patchText,
    sandbox: options.sandbox ?? sandbox,
    dataDir: TEST_DATA_DIR,
    benchmark: {
      seed: 'test-benchmark',
      sizeBytes: options.benchmarkBytes ?? 2 << 20,
      rareSeparators: false,
    },
    benchmarkSeedIsSecret: false,
    publicInput:
      options.publicBytes === null
        ? null
        : { seed: 'test-public', sizeBytes: options.publicBytes ?? 1 << 20, rareSeparators: false },
    // The machines tests run on are busy (CI, other test files in parallel): a host too busy for
    // clean pairs gives a labelled CPU-time estimate rather than a judge error, so the verdicts
    // these tests check do not depend on the load.
    runPolicy: {
      warmups: 1,
      minPairs: 3,
      maxPairs: 3,
      disturbance: { cpuTimeFallback: true },
      ...options.runPolicy,
    },
    devMode: (await cpuVendor()) !== challenge.manifest.targets[target]?.cpuVendor,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onLog ? { onLog: options.onLog } : {}),
    ...(options.memoryBandwidth !== undefined ? { memoryBandwidth: options.memoryBandwidth } : {}),
    ...(options.profile !== undefined ? { profile: options.profile } : {}),
  });
}

export { makePatch, solutionSource } from '../../lib/core/challenge/solution-tree';
