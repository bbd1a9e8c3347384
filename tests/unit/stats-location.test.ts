// The judge's default estimate (Hodges–Lehmann with its signed-rank interval) and the trimmed mean,
// against values computed by hand and by brute-force enumeration.
import { describe, expect, it } from 'vitest';
import {
  EXACT_SIGNED_RANK_INTERVAL_MAX_N,
  hodgesLehmann,
  judgingEstimate,
  judgingStatedConfidence,
  normalCdf,
  signedRankRank,
  speedupEstimate,
  studentTQuantile,
  trimmedMean,
  walshAverages,
  walshOrderStatistic,
  type TimedPair,
} from '../../lib/core/stats';

/** P(T ≤ t) for the signed-rank statistic of n untied values, by enumerating all 2ⁿ sign patterns. */
const sumsByN = new Map<number, number[]>();
function bruteForceCdf(n: number, t: number): number {
  let sums = sumsByN.get(n);
  if (!sums) {
    sums = [];
    for (let mask = 0; mask < 1 << n; mask++) {
      let sum = 0;
      for (let r = 1; r <= n; r++) if (mask & (1 << (r - 1))) sum += r;
      sums.push(sum);
    }
    sumsByN.set(n, sums);
  }
  return sums.filter((sum) => sum <= t).length / 2 ** n;
}

describe('Walsh averages and the Hodges–Lehmann estimate', () => {
  it('lists every (x_i + x_j)/2 for i ≤ j, ascending', () => {
    expect([...walshAverages([4, 1, 2])]).toEqual([1, 1.5, 2, 2.5, 3, 4]);
  });

  it('takes their median, with [min, max] and its true coverage when n is too small', () => {
    // Walsh averages of 1, 2, 4: 1 1.5 2 2.5 3 4 → median 2.25; 3 values cover 1 − 2/8.
    expect(hodgesLehmann([1, 2, 4], 0.95)).toEqual({
      estimate: 2.25,
      low: 1,
      high: 4,
      coverage: 0.75,
    });
  });

  it('uses the signed-rank critical value: for n = 10 at 95%, Walsh averages 9 and 47 of 55', () => {
    // P(T ≤ 8) = 25/1024 (subsets of 1…10 summing to at most 8), P(T ≤ 9) = 33/1024 > 0.025.
    expect(signedRankRank(10, 0.95)).toEqual({ k: 9, coverage: 1 - 50 / 1024 });
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const walsh = [...walshAverages(xs)];
    const r = hodgesLehmann(xs, 0.95);
    expect(r.estimate).toBe(5.5);
    expect([r.low, r.high]).toEqual([walsh[8], walsh[46]]);
    expect([r.low, r.high]).toEqual([3, 8]);
  });

  it('picks the narrowest rank whose exact coverage reaches the level (checked by enumeration)', () => {
    for (const confidence of [0.9, 0.95]) {
      for (let n = 1; n <= 14; n++) {
        const { k, coverage } = signedRankRank(n, confidence);
        const covs = [NaN]; // covs[k]: coverage of the k-th interval
        for (let kk = 1; 2 * kk <= (n * (n + 1)) / 2 + 1; kk++)
          covs.push(Math.max(0, 1 - 2 * bruteForceCdf(n, kk - 1)));
        const cov = (kk: number) => covs[kk]!;
        let expected = 1;
        for (let kk = 2; kk < covs.length; kk++) if (cov(kk) >= confidence) expected = kk;
        expect({ n, k }).toEqual({ n, k: expected });
        expect(coverage).toBeCloseTo(cov(expected), 12);
      }
    }
  });

  it('switches to the normal approximation above the exact limit without a jump', () => {
    const n = EXACT_SIGNED_RANK_INTERVAL_MAX_N;
    const exact = signedRankRank(n, 0.95);
    const approx = signedRankRank(n + 1, 0.95);
    // k grows by about (n+1)/2 per added value near the 2.5% tail; the coverage stays at ~95%.
    expect(approx.k - exact.k).toBeGreaterThan(100);
    expect(approx.k - exact.k).toBeLessThan(200);
    expect(approx.coverage).toBeGreaterThanOrEqual(0.95);
    expect(approx.coverage).toBeLessThan(0.9502);
  });
});

describe('the trimmed mean and its t interval', () => {
  it('computes the Tukey–McLaughlin interval by hand for 1…10 at 20%', () => {
    // g = 2: mean of 3…8 = 5.5; winsorized 3 3 3 4 5 6 7 8 8 8, variance 42.5/9;
    // se = √(42.5/9) / (0.6·√10); t(0.975, 5) = 2.570582.
    const r = trimmedMean([10, 9, 8, 7, 6, 5, 4, 3, 2, 1], 0.95, 0.2);
    const half = (2.570582 * Math.sqrt(42.5 / 9)) / (0.6 * Math.sqrt(10));
    expect(r.estimate).toBe(5.5);
    expect(r.low).toBeCloseTo(5.5 - half, 5);
    expect(r.high).toBeCloseTo(5.5 + half, 5);
  });

  it('has t and normal quantiles right to the printed tables', () => {
    expect(studentTQuantile(0.975, 5)).toBeCloseTo(2.570582, 5);
    expect(studentTQuantile(0.975, 29)).toBeCloseTo(2.04523, 5);
    expect(studentTQuantile(0.05, 1)).toBeCloseTo(-6.313752, 5);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
  });
});

describe('speedupEstimate: the judge’s default is Hodges–Lehmann on log-ratios', () => {
  const withLogRatios = (logs: number[]): TimedPair[] =>
    logs.map((l) => ({ baselineMs: 100 * Math.exp(l), solutionMs: 100 }));

  it('exponentiates the estimate and the interval of the log-ratios', () => {
    // Walsh averages of 0, 0.1, 0.2: 0 .05 .1 .1 .15 .2 → median 0.1.
    const est = speedupEstimate(withLogRatios([0, 0.1, 0.2]));
    expect(est.method).toBe('signed-rank-hodges-lehmann-of-log-ratios');
    expect(est.speedup).toBeCloseTo(Math.exp(0.1), 12);
    expect(est.ciLow).toBeCloseTo(1, 12);
    expect(est.ciHigh).toBeCloseTo(Math.exp(0.2), 12);
    expect(est.guaranteedConfidence).toBe(0.75);
  });

  it("states a judging's 97% interval as 95%, or the fixed-n guarantee where that is less", () => {
    // 3 pairs: the widest signed-rank interval covers 75%; 30 pairs reach the judge's 97%.
    const few = judgingEstimate(withLogRatios([0, 0.1, 0.2]));
    expect(few.guaranteedConfidence).toBe(0.75);
    expect(judgingStatedConfidence(few)).toBe(0.75);
    const many = judgingEstimate(withLogRatios(Array.from({ length: 30 }, (_, i) => i / 300)));
    expect(many.confidence).toBe(0.97);
    expect(many.guaranteedConfidence).toBeGreaterThanOrEqual(0.97);
    expect(judgingStatedConfidence(many)).toBe(0.95);
  });

  it('is symmetric: swapping the sides inverts the speedup and its interval', () => {
    const pairs = withLogRatios([0.31, 0.12, 0.4, 0.22, 0.05, 0.29, 0.18, 0.35]);
    const swapped = pairs.map((p) => ({ baselineMs: p.solutionMs, solutionMs: p.baselineMs }));
    const a = speedupEstimate(pairs);
    const b = speedupEstimate(swapped);
    expect(a.speedup * b.speedup).toBeCloseTo(1, 12);
    expect(a.ciLow * b.ciHigh).toBeCloseTo(1, 12);
  });

  it('keeps the other methods on request, each named', () => {
    const pairs = withLogRatios([0.31, 0.12, 0.4, 0.22, 0.05, 0.29, 0.18, 0.35]);
    expect(speedupEstimate(pairs, { method: 'order-statistic' }).method).toBe(
      'order-statistic-median-of-ratios',
    );
    const tm = speedupEstimate(pairs, { method: 'trimmed-mean' });
    expect(tm.method).toBe('trimmed-mean-of-log-ratios');
    expect(tm.guaranteedConfidence).toBeNull();
    expect(() => speedupEstimate(pairs, { method: 'mean' as never })).toThrow(/unknown interval/);
  });
});

describe('Walsh order statistics without listing the averages', () => {
  it('agrees with the sorted list at every rank, ties included', () => {
    for (const xs of [
      [0.3, -0.1, 0.25, 0.07, 0.07, 0.5, -0.2, 0.11, 0.3],
      [1, 1, 1, 1],
      [2],
      [-3.5, 10, 0.001, 7.25, 7.25, 7.25, -1],
    ]) {
      const s = [...xs].sort((a, b) => a - b);
      const all = [...walshAverages(xs)];
      all.forEach((w, i) => expect(walshOrderStatistic(s, i + 1)).toBe(w));
    }
  });

  it('handles a hundred thousand values in linear memory', () => {
    const xs = Array.from({ length: 100_001 }, (_, i) => i);
    // Walsh averages of 0…N are symmetric about N/2: the median is N/2.
    expect(hodgesLehmann(xs, 0.95).estimate).toBe(50_000);
  });
});
