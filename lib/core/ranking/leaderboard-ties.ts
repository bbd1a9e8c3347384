// Statistical ties on the leaderboard. A row's combined score has an interval made from its
// targets' speedup intervals by the same formula as the score (the sum of the targets' lower and
// upper bounds for 'sum', their geometric means for 'geomean'); a row is tied with the row directly
// above it when the two intervals overlap. Bounds are combined as if every target were at its worst
// (or best) at once, which widens the interval: a tie is claimed rather than a doubtful lead.
import { combineSpeedups } from '../stats/combine-speedups';

export type TieFormula = 'SUM' | 'GEOMEAN';

export interface TargetEstimate {
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
}

export interface ScoreInterval {
  low: number;
  high: number;
}

/** The rule in one sentence, as the page and the exports state it. */
export const TIE_RULE =
  "Tied (≈): the row's combined-score interval (its targets' 95% intervals combined by the scoring formula) overlaps the interval of the row directly above.";

export function combinedScoreInterval(
  formula: TieFormula,
  score: number,
  targets: readonly TargetEstimate[],
): ScoreInterval {
  const usable: { speedup: number; ciLow: number | null; ciHigh: number | null }[] = [];
  for (const t of targets)
    if (t.speedup !== null && t.speedup > 0) usable.push({ ...t, speedup: t.speedup });
  // Without every target's speedup the score cannot be rebuilt: only the score itself is known.
  if (usable.length === 0 || usable.length !== targets.length) return { low: score, high: score };
  // A target without an interval (an older result) counts as exactly its speedup.
  const lows = usable.map((t) => Math.min(t.ciLow ?? t.speedup, t.speedup));
  const highs = usable.map((t) => Math.max(t.ciHigh ?? t.speedup, t.speedup));
  const low = combineSpeedups(formula, lows);
  const high = combineSpeedups(formula, highs);
  // Rounding must not leave the score outside its own interval.
  return { low: Math.min(low, score), high: Math.max(high, score) };
}

/**
 * For rows sorted best first: whether each row is tied with the row above it. Equal scores are
 * always tied; the first row never is.
 */
export function markTies(rows: readonly (ScoreInterval & { score: number })[]): boolean[] {
  return rows.map((row, i) => {
    const above = i > 0 ? rows[i - 1] : undefined;
    if (!above) return false;
    if (row.score === above.score) return true;
    return row.high >= above.low;
  });
}
