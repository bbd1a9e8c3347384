// The measure stage's pair loop as decisions over its tally, apart from the runs themselves: what a
// timed pair adds (kept clean, or discarded as disturbed), whether to stop after it, and which pairs
// the estimate is taken from. Pure, so each rule can be tried on a scripted sequence of pairs.
import type { Estimate, Run } from '../../contracts';
import {
  describeDiscards,
  MIN_CLEAN_SHARE,
  shouldStop,
  judgingEstimate,
  type SpeedupEstimate,
  type StopPolicy,
  type TimedPair,
} from '../../lib/core/stats';

/** One timed pair, by wall time and by the programs' own CPU time. */
export interface MeasuredPair {
  wall: TimedPair;
  cpu: TimedPair;
}

/**
 * The tally of the timed pairs so far. While the basis is wall time, a pair with a disturbed run is
 * discarded (it stays in `all`); once the host is too busy and the policy allows a CPU-time
 * estimate, every pair counts by CPU time and nothing more is discarded.
 */
export interface PairLoop {
  /** The pairs with no disturbed run (while the basis was wall time). */
  clean: MeasuredPair[];
  /** Every timed pair, disturbed or not. */
  all: MeasuredPair[];
  /** Why pairs were discarded: reason → pairs. */
  reasons: Record<string, number>;
  discarded: number;
  basis: Estimate['basis'];
}

export function newPairLoop(): PairLoop {
  return { clean: [], all: [], reasons: {}, discarded: 0, basis: 'wall-time' };
}

function measuredPair(b: Run, s: Run): MeasuredPair {
  // A CPU time of zero cannot be a ratio's denominator; a run that short has no CPU time to speak of.
  const cpu = (r: Run) => Math.max(r.evidence?.cpuMs ?? programCpuMs(r), 1e-3);
  return {
    wall: { baselineMs: b.stats.wallMs, solutionMs: s.stats.wallMs },
    cpu: { baselineMs: cpu(b), solutionMs: cpu(s) },
  };
}

/** The program tree's own CPU time: task-clock from its exec when counted, else user + sys. */
export function programCpuMs(run: Pick<Run, 'stats' | 'counters'>): number {
  const taskClock = run.counters['task-clock'];
  if (taskClock?.status === 'counted' && taskClock.value !== null) return taskClock.value;
  return run.stats.userMs + run.stats.sysMs;
}

/**
 * Adds the timed pair of runs `b` and `s` to the tally and returns why it was disturbed (empty when
 * it was not). On the wall-time basis a disturbed pair is discarded: both runs are marked so.
 */
export function recordPair(loop: PairLoop, b: Run, s: Run): string[] {
  const measured = measuredPair(b, s);
  loop.all.push(measured);
  const why = [...new Set([...(b.evidence?.disturbed ?? []), ...(s.evidence?.disturbed ?? [])])];
  if (loop.basis !== 'wall-time') return why;
  if (why.length) {
    loop.discarded++;
    b.discarded = s.discarded = true;
    for (const r of why) loop.reasons[r] = (loop.reasons[r] ?? 0) + 1;
  } else {
    loop.clean.push(measured);
  }
  return why;
}

/**
 * Whether the loop stops after a pair, and why. On CPU time every pair counts; on wall time only
 * the clean ones, and a disturbed pair decides nothing unless the discard budget is spent.
 */
export function stopDecision(
  loop: PairLoop,
  pairDisturbed: boolean,
  discardBudgetSpent: boolean,
  stopPolicy: StopPolicy,
): Estimate['stopReason'] | null {
  if (loop.basis === 'cpu-time') {
    const decided = shouldStop(judgingEstimate(loop.all.map((p) => p.cpu)), stopPolicy);
    return decided.stop ? stopReason(decided.reason) : null;
  }
  if (pairDisturbed && !discardBudgetSpent) return null;
  const decided = shouldStop(judgingEstimate(loop.clean.map((p) => p.wall)), stopPolicy);
  if (decided.stop) return stopReason(decided.reason);
  return discardBudgetSpent ? 'budget' : null;
}

function stopReason(reason: string): Estimate['stopReason'] {
  return reason === 'precise' ? 'precise' : 'budget';
}

/** The pairs the estimate is taken from on the current basis. */
export function usedPairs(loop: PairLoop): MeasuredPair[] {
  return loop.basis === 'wall-time' ? loop.clean : loop.all;
}

/** The estimate from the pairs used so far (null before the first clean pair). */
function currentEstimate(loop: PairLoop): SpeedupEstimate | null {
  const used = usedPairs(loop);
  if (!used.length) return null;
  return judgingEstimate(used.map((p) => (loop.basis === 'wall-time' ? p.wall : p.cpu)));
}

/** The progress line after pair number `pair` (from 0). */
export function pairProgressMessage(loop: PairLoop, pair: number): string {
  const current = currentEstimate(loop);
  if (!current) return `pair ${pair + 1}: ${loop.discarded} discarded as disturbed`;
  return `pair ${pair + 1}: ${loop.basis === 'cpu-time' ? 'CPU-time ' : ''}speedup ${current.speedup.toFixed(3)} (±${(current.halfWidthRel * 100).toFixed(1)}%)${loop.discarded ? `, ${loop.discarded} discarded as disturbed` : ''}`;
}

export function tooBusyMessage(loop: PairLoop): string {
  // Which of disturbanceDecision's two rules refused: the share, or the discard budget.
  const why =
    loop.clean.length < MIN_CLEAN_SHARE * loop.all.length
      ? 'more than half of them (the clean ones are then the gaps of a busy host, not a fair sample)'
      : 'too many to get enough clean pairs within the discard budget';
  return (
    `the judge host was too busy to time this judging fairly: ${describeDiscards(loop.discarded, loop.reasons)} ` +
    `of ${loop.all.length} were disturbed by other work on the pinned CPU, ${why} ` +
    "(the host's fault, not the solution's: the platform's queue retries it later; run a local judging again once the host is quieter)"
  );
}
