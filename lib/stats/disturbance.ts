// Which timed runs something else disturbed, judged from evidence seen outside the program, and
// when a host has been too busy for long enough that the judge should stop trying. All pure.
import type { DisturbancePolicy } from '../../contracts';

/** The run policy's disturbance settings with every default filled in. */
export interface DisturbanceThresholds {
  maxOtherShare: number;
  minUtilization: number;
  maxStealShare: number;
  maxDiscardedPairs: number;
  cpuTimeFallback: boolean;
}

/**
 * Defaults, from plain interleaved runs on a 2-core VM (README, How the judge guards against noise): on a quiet host other
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
export const TICK_ALLOWANCE = 2;

/**
 * Below this share of clean pairs (after EARLY_ATTEMPTS_PER_MIN_PAIR × minPairs attempts, while
 * fewer than minPairs are clean) the host is busy all the time (a busy loop on the pinned CPU): the
 * rest of the budget could not give enough clean pairs either. At 20 attempts a host that leaves
 * half its pairs clean falls under it once in ~50 000 judgings.
 */
export const MIN_CLEAN_SHARE = 0.1;
export const EARLY_ATTEMPTS_PER_MIN_PAIR = 4;

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
 * spent before minPairs clean pairs, or when after 2 × minPairs attempts fewer than MIN_CLEAN_SHARE
 * of them were clean (a host busy all the time: waiting the budget out would change nothing).
 * 'budget' when the discard budget is spent with enough clean pairs to estimate from.
 */
export function disturbanceDecision(
  tally: PairTally,
  policy: { minPairs: number },
  t: DisturbanceThresholds,
): 'continue' | 'budget' | 'too-busy' {
  const attempts = tally.clean + tally.discarded;
  if (tally.clean < policy.minPairs) {
    if (tally.discarded >= t.maxDiscardedPairs) return 'too-busy';
    if (
      attempts >= EARLY_ATTEMPTS_PER_MIN_PAIR * policy.minPairs &&
      tally.clean < MIN_CLEAN_SHARE * attempts
    )
      return 'too-busy';
    return 'continue';
  }
  return tally.discarded >= t.maxDiscardedPairs ? 'budget' : 'continue';
}

/** "3 pairs (other tasks on the CPU 2, steal 1)" from reason → count. */
export function describeDiscards(discarded: number, reasons: Record<string, number>): string {
  const parts = Object.entries(reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`);
  return `${discarded} pair${discarded === 1 ? '' : 's'}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}
