// The reproducibility bench's noise-floor projection (bench/noise-floor.ts): the per-pair noise it
// reads from clean pairs only, and whether the pairs it says a judging needs really give the spread
// target when judgings are simulated with that noise.
import { describe, expect, it } from 'vitest';
import type { JudgingResult } from '../../contracts';
import { cleanPairRatios, describeSideDrift, noiseFloor } from '../../bench/noise-floor';
import { createRng, median } from '../../lib/core/stats';

interface SimulatedPair {
  ratio: number;
  discarded?: boolean;
}

/** A result holding only what the projection reads: the timed runs, B and S per pair. */
function resultOf(pairs: SimulatedPair[]): JudgingResult {
  const runs = pairs.flatMap((p, pair) =>
    (['baseline', 'solution'] as const).map((side) => ({
      side,
      kind: 'timed' as const,
      pair,
      stats: { wallMs: side === 'baseline' ? 1000 * p.ratio : 1000 },
      ...(p.discarded ? { discarded: true } : {}),
    })),
  );
  return { stages: { measure: { runs } } } as unknown as JudgingResult;
}

const TRUE_SPEEDUP = 1.3;

function simulatedRatios(n: number, cv: number, seed: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => TRUE_SPEEDUP * Math.exp(cv * rng.normal()));
}

describe('noise floor', () => {
  it('reads the per-pair noise from the clean pairs and counts discarded ones as attempts', () => {
    const judgings = [1, 2, 3, 4, 5].map((seed) => {
      const clean = simulatedRatios(60, 0.1, seed).map((ratio) => ({ ratio }));
      // Disturbed pairs, wildly off: they must not widen the noise, only cost attempts.
      const disturbed = [5, 0.2, 9, 0.1].map((ratio) => ({ ratio, discarded: true }));
      return { result: resultOf([...disturbed, ...clean]), seconds: 64 };
    });
    expect(cleanPairRatios(judgings[0]!.result)).toHaveLength(60);
    const floor = noiseFloor(judgings, 0.02)!;
    expect(floor.cleanPairs).toBe(300);
    expect(floor.perPairCv).toBeGreaterThan(0.085);
    expect(floor.perPairCv).toBeLessThan(0.115);
    expect(floor.attemptsPerCleanPair).toBeCloseTo(64 / 60, 6);
    expect(floor.secondsPerAttempt).toBeCloseTo(1, 6);
    // (2.326 · 1.2533 · 0.1 / 0.02)² ≈ 213 for exactly 10% noise.
    expect(floor.pairsNeeded).toBeGreaterThan(150);
    expect(floor.pairsNeeded).toBeLessThan(290);
    expect(floor.secondsNeeded).toBeCloseTo(floor.pairsNeeded * (64 / 60), 6);
  });

  it('projects enough pairs: five simulated judgings of that many pairs keep the spread near the target', () => {
    const cv = 0.1;
    const judgings = [11, 12, 13, 14, 15].map((seed) => ({
      result: resultOf(simulatedRatios(40, cv, seed).map((ratio) => ({ ratio }))),
      seconds: 40,
    }));
    const floor = noiseFloor(judgings, 0.02)!;
    const spreads: number[] = [];
    for (let rep = 0; rep < 200; rep++) {
      const medians = [0, 1, 2, 3, 4].map((j) =>
        median(simulatedRatios(floor.pairsNeeded, cv, 1000 + rep * 5 + j)),
      );
      spreads.push(Math.max(...medians) / Math.min(...medians) - 1);
    }
    // The projection aims the expected spread at the target: the median spread lands near it, and
    // a quarter of the pairs would miss it by far.
    expect(median(spreads)).toBeGreaterThan(0.012);
    expect(median(spreads)).toBeLessThan(0.028);
    const quarter = noiseFloor(judgings, 0.04)!;
    expect(quarter.pairsNeeded).toBeLessThan(floor.pairsNeeded / 3);
  });

  it('says nothing from fewer than five clean pairs', () => {
    const result = resultOf([{ ratio: 1.2 }, { ratio: 1.3 }, { ratio: 5, discarded: true }]);
    expect(noiseFloor([{ result, seconds: 10 }], 0.02)).toBeNull();
  });
});

describe('where a spread came from (describeSideDrift)', () => {
  it('shows a drift within a judging in its halves and its lag-1 autocorrelation, from clean pairs only', () => {
    // The ratio climbs from 1.2 to 1.4 over 40 pairs: a drift the halves and the correlation show.
    const drifting = Array.from({ length: 40 }, (_, i) => ({ ratio: 1.2 + (0.2 * i) / 39 }));
    // Alternating ratios: independent-looking halves, a strongly negative autocorrelation.
    const alternating = Array.from({ length: 40 }, (_, i) => ({ ratio: i % 2 ? 1.4 : 1.2 }));
    const disturbed = [{ ratio: 9, discarded: true }];
    const [header, first, second] = describeSideDrift([
      { result: resultOf([...disturbed, ...drifting]) },
      { result: resultOf(alternating) },
    ]);
    expect(header).toContain('lag-1 autocorrelation');
    const [n1, b1, s1, h1, , h2, rho1] = first!.trim().split(/\s+/);
    expect([n1, s1]).toEqual(['1', '1000.0']);
    // The baseline's median is that of the 40 clean pairs: the discarded 9000 ms run is left out.
    expect(Number(b1)).toBeCloseTo(1300, 0);
    expect(Number(h1)).toBeLessThan(1.26);
    expect(Number(h2)).toBeGreaterThan(1.34);
    expect(Number(rho1)).toBeGreaterThan(0.8);
    const fields = second!.trim().split(/\s+/);
    expect(Number(fields[3])).toBeCloseTo(Number(fields[5]), 6);
    expect(Number(fields[6])).toBeLessThan(-0.9);
  });
});
