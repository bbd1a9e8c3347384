// Unit tests of the judge's statistics: exact small cases, determinism, validation, stopping, flags.
import { describe, expect, it } from 'vitest';
import {
  bootstrapMedians,
  createRng,
  noiseFlags,
  orderStatisticRank,
  outliers,
  shouldStop,
  simulatePairs,
  speedupEstimate,
  summarize,
  type SpeedupEstimate,
  type TimedPair,
} from '../../lib/core/stats';

const pairsOf = (xs: [number, number][]): TimedPair[] =>
  xs.map(([baselineMs, solutionMs]) => ({ baselineMs, solutionMs }));

/** Exact P(Binomial(n, ½) ≤ j) with integers, independent of the module's log-space sum. */
function exactBinomialHalfCdf(n: number, j: number): number {
  let c = 1n;
  let sum = 0n;
  for (let i = 0; i <= j; i++) {
    sum += c;
    c = (c * BigInt(n - i)) / BigInt(i + 1);
  }
  return Number((sum * 10n ** 15n) / 2n ** BigInt(n)) / 1e15;
}

/** The median of ratios with its sign-test interval: the judge's former default, still available. */
const MEDIAN = { method: 'order-statistic' } as const;

describe('speedupEstimate (median of ratios): exact values', () => {
  it('takes the median of the pairwise ratios (odd n)', () => {
    const est = speedupEstimate(
      pairsOf([
        [2, 1],
        [9, 3],
        [4, 2],
      ]),
      MEDIAN,
    );
    expect(est.speedup).toBe(2);
    expect(est.pairs).toBe(3);
    expect(est.method).toBe('order-statistic-median-of-ratios');
  });

  it('averages the two middle ratios (even n)', () => {
    // ratios 1.5, 2, 3, 4
    const est = speedupEstimate(
      pairsOf([
        [8, 2],
        [3, 2],
        [6, 2],
        [4, 2],
      ]),
      MEDIAN,
    );
    expect(est.speedup).toBe(2.5);
  });

  it('is a ratio of paired runs, not of totals', () => {
    // A slow pair (both runs 10x) must not dominate: ratios 2, 2, 1 → median 2; totals would say 1.1.
    const est = speedupEstimate(
      pairsOf([
        [2, 1],
        [20, 10],
        [1, 1],
      ]),
      MEDIAN,
    );
    expect(est.speedup).toBe(2);
  });

  it('returns the order-statistic interval [r(2), r(9)] for 10 pairs', () => {
    const baselines = [105, 101, 110, 103, 108, 102, 107, 104, 109, 106];
    const est = speedupEstimate(
      baselines.map((b) => ({ baselineMs: b, solutionMs: 100 })),
      MEDIAN,
    );
    expect(est.speedup).toBeCloseTo(1.055, 12);
    expect(est.ciLow).toBeCloseTo(1.02, 12);
    expect(est.ciHigh).toBeCloseTo(1.09, 12);
    expect(est.halfWidthRel).toBeCloseTo(0.035 / 1.055, 12);
    // 1 − 2·P(Bin(10, ½) ≤ 1) = 1 − 2·11/1024
    expect(est.guaranteedConfidence).toBeCloseTo(1 - 22 / 1024, 12);
    expect(est.confidence).toBe(0.95);
  });

  it('falls back to [min, max] with its true, lower coverage when n is too small for 95%', () => {
    const est = speedupEstimate(
      pairsOf([
        [3, 1],
        [1, 1],
        [2, 1],
        [5, 1],
        [4, 1],
      ]),
      MEDIAN,
    );
    expect([est.ciLow, est.speedup, est.ciHigh]).toEqual([1, 3, 5]);
    expect(est.guaranteedConfidence).toBe(1 - 2 / 32);
  });

  it('picks the narrowest order-statistic interval with exact binomial coverage ≥ the level', () => {
    for (const confidence of [0.9, 0.95, 0.99]) {
      for (let n = 1; n <= 60; n++) {
        const { k, coverage } = orderStatisticRank(n, confidence);
        const cov = (kk: number) => Math.max(0, 1 - 2 * exactBinomialHalfCdf(n, kk - 1));
        let expectedK = 1;
        for (let kk = 2; 2 * kk <= n + 1; kk++) if (cov(kk) >= confidence) expectedK = kk;
        expect({ n, k }).toEqual({ n, k: expectedK });
        expect(coverage).toBeCloseTo(cov(expectedK), 10);
        if (cov(1) >= confidence) expect(coverage).toBeGreaterThanOrEqual(confidence);
      }
    }
    expect(orderStatisticRank(30, 0.95)).toEqual({ k: 10, coverage: expect.closeTo(0.9572, 4) });
  });

  it('handles large n without underflow', () => {
    const { k, coverage } = orderStatisticRank(5000, 0.95);
    // Normal approximation: k ≈ n/2 − 1.96·√n/2 ≈ 2431
    expect(Math.abs(k - 2431)).toBeLessThanOrEqual(2);
    expect(coverage).toBeGreaterThanOrEqual(0.95);
    expect(coverage).toBeLessThan(0.952);
  });
});

describe('bootstrap', () => {
  it('draws resample medians with the exact bootstrap distribution (n = 3 and n = 2)', () => {
    const rng = createRng(1);
    const m3 = bootstrapMedians([1, 2, 3], 200_000, rng);
    // toBeCloseTo(x, 2) allows ±0.005, over 4 standard errors at 200 000 draws.
    const share = (ms: number[], v: number) => ms.filter((m) => m === v).length / ms.length;
    // P(median = 1) = P(at least two of three draws are the smallest) = 7/27
    expect(share(m3, 1)).toBeCloseTo(7 / 27, 2);
    expect(share(m3, 2)).toBeCloseTo(13 / 27, 2);
    expect(share(m3, 3)).toBeCloseTo(7 / 27, 2);
    const m2 = bootstrapMedians([1, 3], 200_000, rng);
    expect(share(m2, 1)).toBeCloseTo(0.25, 2);
    expect(share(m2, 2)).toBeCloseTo(0.5, 2);
    expect(share(m2, 3)).toBeCloseTo(0.25, 2);
  });

  it('is available on request and brackets the median', () => {
    const pairs = simulatePairs(createRng(3), { pairs: 20, baselineMs: 500, trueRatio: 2 });
    const est = speedupEstimate(pairs, { method: 'bootstrap' });
    expect(est.method).toBe('bootstrap-median-of-ratios');
    expect(est.guaranteedConfidence).toBeNull();
    expect(est.ciLow).toBeLessThanOrEqual(est.speedup);
    expect(est.ciHigh).toBeGreaterThanOrEqual(est.speedup);
    expect(est.speedup).toBe(speedupEstimate(pairs, MEDIAN).speedup);
  });
});

describe('determinism', () => {
  const pairs = simulatePairs(createRng(11), { pairs: 17, baselineMs: 800, trueRatio: 1.37 });
  const shuffled = [...pairs].reverse();

  it('gives the same estimate for the same input, with either method', () => {
    expect(speedupEstimate(pairs)).toEqual(speedupEstimate(pairs));
    expect(speedupEstimate(pairs, { method: 'bootstrap' })).toEqual(
      speedupEstimate(pairs, { method: 'bootstrap' }),
    );
    expect(speedupEstimate(pairs, { method: 'bootstrap', seed: 99 })).toEqual(
      speedupEstimate(structuredClone(pairs), { method: 'bootstrap', seed: 99 }),
    );
  });

  it('does not depend on the order of the pairs', () => {
    expect(speedupEstimate(shuffled)).toEqual(speedupEstimate(pairs));
    expect(speedupEstimate(shuffled, { method: 'bootstrap' })).toEqual(
      speedupEstimate(pairs, { method: 'bootstrap' }),
    );
  });

  it('uses the seed: a different seed gives other resamples, and the same speedup', () => {
    const ratios = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(bootstrapMedians(ratios, 50, createRng(1))).not.toEqual(
      bootstrapMedians(ratios, 50, createRng(2)),
    );
    // An even count makes the resampled medians averages, so the percentiles move with the seed.
    const even = pairs.slice(0, 16);
    const a = speedupEstimate(even, { method: 'bootstrap', seed: 1 });
    const b = speedupEstimate(even, { method: 'bootstrap', seed: 2 });
    expect(a.speedup).toBe(b.speedup);
    expect([a.ciLow, a.ciHigh]).not.toEqual([b.ciLow, b.ciHigh]);
  });

  it('seeded generator repeats and looks uniform / normal', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, createRng(seed).next);
    const r = createRng(5);
    const a = Array.from({ length: 5 }, () => r.next());
    const r2 = createRng(5);
    expect(Array.from({ length: 5 }, () => r2.next())).toEqual(a);
    expect(draw(6)).not.toEqual(a);
    const g = createRng(8);
    const u = Array.from({ length: 20_000 }, () => g.next());
    const z = Array.from({ length: 20_000 }, () => g.normal());
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.min(...u)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...u)).toBeLessThan(1);
    expect(mean(u)).toBeCloseTo(0.5, 2);
    expect(mean(z)).toBeCloseTo(0, 1);
    expect(Math.sqrt(mean(z.map((x) => x * x)))).toBeCloseTo(1, 1);
  });
});

describe('input validation', () => {
  const good = pairsOf([
    [10, 5],
    [11, 5],
    [12, 6],
  ]);
  it.each([
    ['empty', [], /at least one/],
    [
      'zero solution',
      pairsOf([
        [10, 5],
        [10, 0],
      ]),
      /pairs\.solutionMs\[1\] must be a positive/,
    ],
    ['negative baseline', pairsOf([[-1, 5]]), /pairs\.baselineMs\[0\] must be a positive/],
    [
      'NaN',
      pairsOf([
        [10, 5],
        [10, 5],
        [NaN, 5],
      ]),
      /baselineMs\[2\].*got NaN/,
    ],
    ['infinite', pairsOf([[10, Infinity]]), /solutionMs\[0\].*Infinity/],
  ])('rejects %s times', (_name, pairs, message) => {
    expect(() => speedupEstimate(pairs as TimedPair[])).toThrow(message);
    expect(() => speedupEstimate(pairs as TimedPair[], { method: 'bootstrap' })).toThrow(message);
  });

  it('rejects a missing field and bad options', () => {
    expect(() => speedupEstimate([{ baselineMs: 10 } as TimedPair])).toThrow(/solutionMs\[0\]/);
    expect(() => speedupEstimate(good, { confidence: 1 })).toThrow(/confidence/);
    expect(() => speedupEstimate(good, { confidence: 0 })).toThrow(/confidence/);
    expect(() => speedupEstimate(good, { resamples: 10 })).toThrow(/resamples/);
    expect(() => speedupEstimate(good, { seed: NaN })).toThrow(/seed/);
  });

  it('summarize and outliers reject bad samples too', () => {
    expect(() => summarize([])).toThrow(/at least one/);
    expect(() => summarize([1, 0])).toThrow(/samplesMs\[1\]/);
    expect(() => outliers([1, -2])).toThrow(/samplesMs\[1\]/);
  });
});

describe('interval width', () => {
  it('shrinks as pairs are added', () => {
    const rng = createRng(21);
    const meanWidth = (n: number) => {
      let sum = 0;
      for (let e = 0; e < 200; e++) {
        sum += speedupEstimate(
          simulatePairs(rng, { pairs: n, baselineMs: 1000, trueRatio: 1.37 }),
        ).halfWidthRel;
      }
      return sum / 200;
    };
    const [w10, w30, w100] = [meanWidth(10), meanWidth(30), meanWidth(100)];
    expect(w30).toBeLessThan(w10 * 0.8);
    expect(w100).toBeLessThan(w30 * 0.7);
  });
});

describe('shouldStop', () => {
  const policy = { minPairs: 5, maxPairs: 30, precision: 0.01 };
  const est = (pairs: number, halfWidthRel: number, guaranteed: number | null = 0.96) =>
    ({
      speedup: 2,
      ciLow: 2 - 2 * halfWidthRel,
      ciHigh: 2 + 2 * halfWidthRel,
      halfWidthRel,
      pairs,
      confidence: 0.95,
      guaranteedConfidence: guaranteed,
      method: 'order-statistic-median-of-ratios',
    }) satisfies SpeedupEstimate;

  it('continues below the minimum even when the interval is narrow', () => {
    expect(shouldStop(est(4, 0), policy)).toEqual({ stop: false, reason: 'continue' });
  });
  it('stops as precise once the half-width is within precision', () => {
    expect(shouldStop(est(5, 0.01), policy)).toEqual({ stop: true, reason: 'precise' });
    expect(shouldStop(est(12, 0.004), policy)).toEqual({ stop: true, reason: 'precise' });
    expect(shouldStop(est(30, 0.009), policy)).toEqual({ stop: true, reason: 'precise' });
  });
  it('continues while wide, and stops on budget at the maximum', () => {
    expect(shouldStop(est(29, 0.0101), policy)).toEqual({ stop: false, reason: 'continue' });
    expect(shouldStop(est(30, 0.0101), policy)).toEqual({ stop: true, reason: 'budget' });
    expect(shouldStop(est(31, 0.05), policy)).toEqual({ stop: true, reason: 'budget' });
  });
  it('never calls an interval precise when it covers less than the level asked', () => {
    expect(shouldStop(est(5, 0, 0.9375), policy)).toEqual({ stop: false, reason: 'continue' });
    expect(shouldStop(est(5, 0, null), policy)).toEqual({ stop: true, reason: 'precise' });
    // Five identical ratios: zero width, but [min, max] of 5 only covers 93.75%.
    const same = speedupEstimate(
      pairsOf([
        [2, 1],
        [2, 1],
        [2, 1],
        [2, 1],
        [2, 1],
      ]),
    );
    expect(same.halfWidthRel).toBe(0);
    expect(shouldStop(same, policy).reason).toBe('continue');
    const six = speedupEstimate(
      pairsOf([
        [2, 1],
        [2, 1],
        [2, 1],
        [2, 1],
        [2, 1],
        [2, 1],
      ]),
    );
    expect(shouldStop(six, policy).reason).toBe('precise');
  });
  it('rejects an inconsistent policy', () => {
    expect(() => shouldStop(est(5, 0), { ...policy, maxPairs: 4 })).toThrow(/maxPairs/);
    expect(() => shouldStop(est(5, 0), { ...policy, minPairs: 0 })).toThrow(/minPairs/);
    expect(() => shouldStop(est(5, 0), { ...policy, precision: 0 })).toThrow(/precision/);
  });

  /** Runs the judge's loop on simulated pairs: add a pair, estimate, ask whether to stop. */
  function judge(seed: number, noise: Parameters<typeof simulatePairs>[1]['noise']) {
    const all = simulatePairs(createRng(seed), {
      pairs: policy.maxPairs,
      baselineMs: 1000,
      trueRatio: 1.37,
      noise,
    });
    for (let n = 1; ; n++) {
      const e = speedupEstimate(all.slice(0, n));
      const d = shouldStop(e, policy);
      if (d.stop) return { n, reason: d.reason, e };
    }
  }
  it('stops early on a quiet host and spends the budget on a noisy one', () => {
    const quiet = judge(1, { jitterSigma: 0.003, tailProbability: 0, slowEnter: 0 });
    expect(quiet.reason).toBe('precise');
    expect(quiet.n).toBeLessThan(15);
    expect(quiet.e.speedup).toBeCloseTo(1.37, 1);
    const noisy = judge(1, { jitterSigma: 0.05, tailProbability: 0.2 });
    expect(noisy).toMatchObject({ n: 30, reason: 'budget' });
  });
});

describe('summarize', () => {
  it('computes every field by hand', () => {
    const s = summarize([4, 1, 100, 3, 2]);
    expect(s).toMatchObject({ n: 5, min: 1, max: 100, median: 3, mean: 22, mad: 1 });
    expect(s.stddev).toBeCloseTo(Math.sqrt(7610 / 4), 12);
    expect(s.cv).toBeCloseTo(Math.sqrt(7610 / 4) / 22, 12);
    expect(s.p10).toBeCloseTo(1.4, 12);
    expect(s.p90).toBeCloseTo(61.6, 12);
    expect(summarize([7])).toMatchObject({ n: 1, median: 7, stddev: 0, cv: 0, p10: 7, p90: 7 });
    expect(summarize([1, 2, 3, 4]).median).toBe(2.5);
  });
});

describe('outliers', () => {
  it('reports slow and fast runs by index, on log times', () => {
    const o = outliers([100, 101, 99, 100, 102, 98, 100, 150, 50]);
    expect(o.high).toEqual([7]);
    expect(o.low).toEqual([8]);
    expect(o.highFenceMs).toBeGreaterThan(102);
    expect(o.highFenceMs).toBeLessThan(150);
  });
  it('does not call ordinary jitter an outlier', () => {
    expect(outliers([100, 100.1, 99.9, 100, 100.05, 103])).toMatchObject({ high: [], low: [] });
  });
});

describe('noiseFlags', () => {
  const policy = { minPairs: 5, maxPairs: 20, precision: 0.01 };
  const quietNoise = { jitterSigma: 0.004, tailProbability: 0, slowEnter: 0 };
  const flagsFor = (pairs: TimedPair[], p = policy) => noiseFlags(pairs, speedupEstimate(pairs), p);

  it('says nothing about a quiet host', () => {
    const pairs = simulatePairs(createRng(2), {
      pairs: 20,
      baselineMs: 1000,
      trueRatio: 1.37,
      noise: quietNoise,
    });
    expect(flagsFor(pairs)).toEqual([]);
  });

  it('flags a noisy host with its coefficient of variation, and a budget spent without precision', () => {
    const pairs = simulatePairs(createRng(2), {
      pairs: 20,
      baselineMs: 1000,
      trueRatio: 1.37,
      noise: { jitterSigma: 0.03, tailProbability: 0.35 },
    });
    const flags = flagsFor(pairs);
    const cv = summarize(pairs.map((p) => p.baselineMs)).cv;
    expect(flags).toContain(
      `noisy host: baseline runs vary by ${Math.round(cv * 100)}% (coefficient of variation; a quiet core shows under 5%)`,
    );
    expect(flags.find((f) => f.startsWith('interval wider'))).toMatch(
      /^interval wider than the target precision after the maximum runs: ±\d+\.\d% after 20 pairs, target ±1\.0%$/,
    );
  });

  it('flags interference when a minority of runs is much slower than the rest', () => {
    const pairs = simulatePairs(createRng(3), {
      pairs: 20,
      baselineMs: 1000,
      trueRatio: 1.37,
      noise: quietNoise,
    });
    for (const i of [2, 7, 11, 16]) pairs[i]!.baselineMs *= 1.3;
    const flags = flagsFor(pairs);
    expect(flags).toContain(
      'interference: 4 of 20 baseline runs were much slower than the rest (Tukey fences on log time)',
    );
    expect(flags.some((f) => f.includes('solution runs were much slower'))).toBe(false);
  });

  it('flags drift of both sides, but not of the speedup when it cancels', () => {
    const pairs = simulatePairs(createRng(4), {
      pairs: 21,
      baselineMs: 1000,
      trueRatio: 2,
      noise: { ...quietNoise, driftPerRun: 0.004 },
    });
    const flags = flagsFor(pairs);
    expect(flags).toContainEqual(
      expect.stringMatching(/^drift: baseline got 1\d% slower between the first and last third/),
    );
    expect(flags).toContainEqual(expect.stringMatching(/^drift: solution got 1\d% slower/));
    expect(flags.some((f) => f.startsWith('drift: the speedup'))).toBe(false);
  });

  it('flags a speedup that moves during the measurement', () => {
    const pairs = Array.from({ length: 12 }, (_, i) => ({
      baselineMs: 1000,
      solutionMs: i < 6 ? 500 : 560,
    }));
    expect(flagsFor(pairs)).toContainEqual(
      expect.stringMatching(
        /^drift: the speedup moved from 2\.000 .* to 1\.786 in the last \(−11%\)$/,
      ),
    );
  });

  it('flags short runs and too few pairs', () => {
    const pairs = pairsOf([
      [30, 10],
      [30.1, 10],
      [30, 10.1],
      [29.9, 10],
      [30, 9.9],
    ]);
    const flags = flagsFor(pairs);
    expect(flags).toContainEqual(expect.stringMatching(/^short runs: the solution takes 10\.0 ms/));
    expect(flags).toContainEqual(expect.stringMatching(/^short runs: the baseline takes 30\.0 ms/));
    expect(flags).toContainEqual(
      'too few pairs: with 5 pairs the interval covers the true speedup only 93.8% of the time, not 95%',
    );
  });
});
