// The tie rule of the leaderboard: combined intervals by formula, and overlap with the row above.
import { describe, expect, it } from 'vitest';
import { combinedScoreInterval, markTies } from '../../lib/core/ranking/leaderboard-ties';

const t = (speedup: number | null, ciLow: number | null, ciHigh: number | null) => ({
  speedup,
  ciLow,
  ciHigh,
});

describe('combinedScoreInterval', () => {
  it('adds the targets’ bounds for the sum formula', () => {
    const i = combinedScoreInterval('SUM', 5, [t(2, 1.9, 2.1), t(3, 2.8, 3.3)]);
    expect(i.low).toBeCloseTo(4.7);
    expect(i.high).toBeCloseTo(5.4);
  });

  it('takes the geometric mean of the bounds for the geomean formula', () => {
    const i = combinedScoreInterval('GEOMEAN', Math.sqrt(8), [t(2, 1, 4), t(4, 1, 9)]);
    expect(i.low).toBeCloseTo(1);
    expect(i.high).toBeCloseTo(6);
  });

  it('counts a target without an interval as exactly its speedup', () => {
    expect(combinedScoreInterval('SUM', 4, [t(2, null, null), t(2, 1.5, 2.5)])).toEqual({
      low: 3.5,
      high: 4.5,
    });
  });

  it('falls back to the score alone when a target has no speedup', () => {
    expect(combinedScoreInterval('SUM', 4, [t(null, null, null), t(2, 1, 3)])).toEqual({
      low: 4,
      high: 4,
    });
    expect(combinedScoreInterval('SUM', 4, [])).toEqual({ low: 4, high: 4 });
  });

  it('never leaves the score outside its own interval', () => {
    // A bootstrap interval need not contain the median estimate exactly.
    const i = combinedScoreInterval('SUM', 4, [t(2, 2.1, 2.3), t(2, 2.05, 2.2)]);
    expect(i.low).toBe(4);
    expect(i.high).toBeCloseTo(4.5);
  });
});

describe('markTies', () => {
  const row = (score: number, low: number, high: number) => ({ score, low, high });

  it('ties a row whose interval reaches the one above, and only that', () => {
    expect(
      markTies([
        row(10, 9.5, 10.5),
        row(9.6, 9.4, 9.8), // reaches 9.5: tied with the first
        row(9, 8.8, 9.2), // below 9.4: a clear third
        row(9, 9, 9), // equal score: always tied
        row(8, 7.9, 8.1),
      ]),
    ).toEqual([false, true, false, true, false]);
  });

  it('does not chain: a row is compared with its neighbour above only', () => {
    // b overlaps a, c overlaps b, c does not overlap a: c is tied with b, not with a.
    expect(markTies([row(3, 2.6, 3.4), row(2.5, 2.1, 2.9), row(2, 1.5, 2.2)])).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('touching bounds count as overlapping; intervals of zero width only tie equal scores', () => {
    expect(markTies([row(2, 1.5, 2.5), row(1, 0.5, 1.5)])).toEqual([false, true]);
    expect(markTies([row(2, 2, 2), row(1.999, 1.999, 1.999)])).toEqual([false, false]);
    expect(markTies([])).toEqual([]);
  });
});
