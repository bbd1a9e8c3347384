// Which timed runs something else disturbed, judged from evidence seen outside the program, and
// when a host has been too busy for long enough that the judge should stop trying. All pure.
import type { DisturbancePolicy } from '../../../contracts';

/** The run policy's disturbance settings with every default filled in. */
export interface DisturbanceThresholds {
  maxOtherShare: number;
  minUtilization: number;
  maxStealShare: number;
  maxDiscardedPairs: number;
  cpuTimeFallback: boolean;
}

/**
 * Defaults, from plain interleaved runs on a 2-core VM (docs/judging.md, How the judge guards against noise): on a quiet host other
 * tasks take 0–10 ms of a 1–2 s run on the pinned CPU (under 1%), so 5% is far above the quiet floor
 * yet well under the 15–50% a co-scheduled busy loop takes. A run slowed 5% moves one pairwise ratio
 * by about half the ~10% run-to-run variation every run has anyway; the median of ratios absorbs
 * that. Utilization is only used where the other tasks' time cannot be read (no /proc/stat for the
 * pinned CPU): with it, a program that waits on its own (sleeps, I/O) is its own business and its
 * wall time counts, so it can never make the host look busy and have its judging retried forever.
 */
export const DEFAULT_DISTURBANCE = {
  maxOtherShare: 0.05,
  minUtilization: 0.9,
  maxStealShare: 0.02,
  cpuTimeFallback: false,
} as const;

/**
 * Tick accounting (/proc/stat) charges a whole tick to whatever runs when it fires, so the other
 * tasks' time of a run is known to within about a tick either way: this many ticks are allowed on
 * top of the share, or every short run would be called disturbed by the tick it happened to share.
 */
const TICK_ALLOWANCE = 2;

/**
 * A judging is trusted only while at least this share of its pairs can be clean. On a host where
 * other work holds the pinned CPU most of the time, the pairs that come out clean are the ones that
 * happened to run in its gaps, not a fair sample. With a busy loop on every CPU throughout, one
 * morning 25–33% of the bench's pairs were clean and four judgings kept from them read 1.067–1.151
 * (quiet, the same morning: 1.048–1.107, median 1.072); with loops 2 s in every 5, 56–62% were
 * clean, and an evening's full load left 50–75% clean with every figure within 1.3% of the quiet
 * median (docs/judging.md, How the judge guards against noise). Half sits between the two.
 */
export const MIN_CLEAN_SHARE = 0.5;
/**
 * How sure the judge must be that the clean share is below MIN_CLEAN_SHARE before it refuses: the
 * one-sided Wilson upper bound at this z (about 98%). Simulated with minPairs 5 (the rule's own
 * test): a host that leaves 58% of pairs clean is refused in about 1 judging in 100 (retried later),
 * one that leaves 30% in 87% with maxPairs 30 and always with maxPairs 150; the rest end on the
 * discard budget, from their clean pairs.
 */
const CLEAN_SHARE_Z = 2;
/** The share rule looks only after this many attempts per minPairs (fewer say little). */
const EARLY_ATTEMPTS_PER_MIN_PAIR = 4;

/** Wilson score upper bound of a binomial proportion (successes of n) at z. */
export function wilsonUpper(successes: number, n: number, z: number): number {
  if (n === 0) return 1;
  const p = successes / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.min(1, (centre + spread) / (1 + z2 / n));
}

export function resolveDisturbance(
  policy: DisturbancePolicy | undefined,
  maxPairs: number,
): DisturbanceThresholds {
  return {
    maxOtherShare: policy?.maxOtherShare ?? DEFAULT_DISTURBANCE.maxOtherShare,
    minUtilization: policy?.minUtilization ?? DEFAULT_DISTURBANCE.minUtilization,
    maxStealShare: policy?.maxStealShare ?? DEFAULT_DISTURBANCE.maxStealShare,
    maxDiscardedPairs: policy?.maxDiscardedPairs ?? maxPairs,
    cpuTimeFallback: policy?.cpuTimeFallback ?? DEFAULT_DISTURBANCE.cpuTimeFallback,
  };
}

/** What the trusted side saw of one run; null where the host cannot tell. */
export interface RunObservation {
  wallMs: number;
  /** The program tree's own CPU time. */
  cpuMs: number;
  /** Busy time of the pinned CPU over the run, all tasks (the program's included). */
  cpuBusyMs: number | null;
  stealMs: number | null;
  cpuMigrations: number | null;
  /** Resolution of cpuBusyMs and stealMs. */
  tickMs: number | null;
}

/** Reasons a run is disturbed; the keys are what the result counts discarded pairs by. */
export const DISTURBANCE_REASONS = {
  'other-tasks': 'other tasks ran on the pinned CPU',
  steal: 'the hypervisor stole time from the pinned CPU',
  'low-utilization': 'the program had its CPU less than the threshold of its wall time',
  migrated: 'the program moved between CPUs (the pinning did not hold)',
} as const;
export type DisturbanceReason = keyof typeof DISTURBANCE_REASONS;

/** Other tasks' time on the pinned CPU during the run: its busy time minus the program's own. */
export function otherTasksMs(o: RunObservation): number | null {
  return o.cpuBusyMs === null ? null : Math.max(0, o.cpuBusyMs - o.cpuMs);
}

export function disturbanceReasons(
  o: RunObservation,
  t: DisturbanceThresholds,
): DisturbanceReason[] {
  const reasons: DisturbanceReason[] = [];
  const slack = TICK_ALLOWANCE * (o.tickMs ?? 0);
  const other = otherTasksMs(o);
  if (other !== null && other > t.maxOtherShare * o.wallMs + slack) reasons.push('other-tasks');
  if (o.stealMs !== null && o.stealMs > t.maxStealShare * o.wallMs + slack) reasons.push('steal');
  // Without the CPU's accounting, a run that had its CPU less than it should is the only sign.
  if (other === null && o.wallMs > 0 && o.cpuMs / o.wallMs < t.minUtilization)
    reasons.push('low-utilization');
  if (o.cpuMigrations !== null && o.cpuMigrations > 0) reasons.push('migrated');
  return reasons;
}

export interface PairTally {
  /** Clean pairs kept so far. */
  clean: number;
  /** Pairs discarded as disturbed so far. */
  discarded: number;
}

/**
 * After a pair: go on, or stop because the host is too busy. 'too-busy' when the discard budget is
 * spent before minPairs clean pairs, or when, after EARLY_ATTEMPTS_PER_MIN_PAIR × minPairs attempts,
 * the clean share is confidently below MIN_CLEAN_SHARE (whatever the clean pairs already say: they
 * are the gaps of a busy host). 'budget' when the discard budget is spent with enough clean pairs to
 * estimate from.
 */
export function disturbanceDecision(
  tally: PairTally,
  policy: { minPairs: number },
  t: DisturbanceThresholds,
): 'continue' | 'budget' | 'too-busy' {
  const attempts = tally.clean + tally.discarded;
  if (
    attempts >= EARLY_ATTEMPTS_PER_MIN_PAIR * policy.minPairs &&
    wilsonUpper(tally.clean, attempts, CLEAN_SHARE_Z) < MIN_CLEAN_SHARE
  )
    return 'too-busy';
  if (tally.discarded < t.maxDiscardedPairs) return 'continue';
  return tally.clean < policy.minPairs ? 'too-busy' : 'budget';
}

/** "3 pairs (other tasks on the CPU 2, steal 1)" from reason → count. */
export function describeDiscards(discarded: number, reasons: Record<string, number>): string {
  const parts = Object.entries(reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`);
  return `${discarded} pair${discarded === 1 ? '' : 's'}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}
