// The final ranking (lib/core/ranking): the paired test and the correction it rests on, checked against
// known values; the ranking's rules on hand-made rounds; and simulated final evaluations with known
// true speedups, which check what docs/organizers.md promises: finalists that differ by more than the noise
// come out in the right order, equal ones share a place, and separating equal finalists happens at
// most as often as the stated error rate.
import { describe, expect, it } from 'vitest';
import { BASELINE_ENTRANT, type FinalRound, type FinalRun } from '../../contracts/final';
import {
  rankFinalists,
  rankingInputFromRounds,
  type FinalRankingInput,
  type PairwiseComparison,
  type RankingRound,
  type ScoredEntrant,
} from '../../lib/core/ranking/final-ranking';
import { assignPlaces, roundsToSeparateFinalists } from '../../lib/core/ranking/places';
import { holm } from '../../lib/core/stats/holm';
import { createRng, type Rng } from '../../lib/core/stats/rng';
import { EXACT_SIGNED_RANK_MAX_N, erfc, signedRankTest } from '../../lib/core/stats/signed-rank';

/** Two-sided exact p-value by enumerating all 2ⁿ sign assignments (an oracle for small n). */
function bruteForceP(differences: number[]): number {
  const d = differences.filter((x) => x !== 0);
  const abs = d.map(Math.abs);
  const ranks = abs.map((a) => {
    const less = abs.filter((b) => b < a).length;
    const equal = abs.filter((b) => b === a).length;
    return less + (equal + 1) / 2;
  });
  const observed = d.reduce((s, x, i) => s + (x > 0 ? ranks[i]! : 0), 0);
  let lower = 0;
  let upper = 0;
  const total = 2 ** d.length;
  for (let mask = 0; mask < total; mask++) {
    let w = 0;
    for (let i = 0; i < d.length; i++) if (mask & (1 << i)) w += ranks[i]!;
    if (w <= observed + 1e-9) lower++;
    if (w >= observed - 1e-9) upper++;
  }
  return Math.min(1, (2 * Math.min(lower, upper)) / total);
}

describe('signedRankTest (Wilcoxon, two-sided)', () => {
  it('gives the exact p-values of known cases', () => {
    const tenPositive = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(signedRankTest(tenPositive)).toMatchObject({
      n: 10,
      wPlus: 55,
      wMinus: 0,
      method: 'exact',
    });
    expect(signedRankTest(tenPositive).pValue).toBeCloseTo(2 / 1024, 15);
    expect(signedRankTest(tenPositive.map((x) => -x)).pValue).toBeCloseTo(2 / 1024, 15);
    expect(signedRankTest([0.1, 0.2, 0.3, 0.4, 0.5]).pValue).toBeCloseTo(2 / 32, 15);
    // R: wilcox.test(x, y, paired = TRUE) on Hollander & Wolfe's depression data: V = 40, p = 0.03906.
    const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
    const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
    const r = signedRankTest(x.map((v, i) => v - y[i]!));
    expect(r.wPlus).toBe(40);
    expect(r.pValue).toBeCloseTo(20 / 512, 12);
    // Balanced signs: nothing to see.
    expect(signedRankTest([1, -1.5, 2, -2.5, 3, -3.5]).pValue).toBeGreaterThan(0.5);
  });

  it('drops zeros and matches a brute-force enumeration with tied magnitudes', () => {
    const cases = [
      [0, 0, 1, 2, 3, 4, 5, 6],
      [1, 1, -1, 2, 2, 3, -4, 5, 5, 5],
      [0.5, -0.5, 0.5, 1, 1, -2, 3, 3, 3, -3, 4, 6],
      [2, 2, 2, 2, -2, 2, 2],
    ];
    for (const d of cases) {
      const r = signedRankTest(d);
      expect(r.n).toBe(d.filter((v) => v !== 0).length);
      expect(r.pValue).toBeCloseTo(bruteForceP(d), 12);
    }
    expect(signedRankTest([0, 0, 0])).toMatchObject({ n: 0, pValue: 1, method: 'none' });
  });

  it('switches to the normal approximation above 50 differences, which agrees with the exact one there', () => {
    const rng = createRng(7);
    for (let trial = 0; trial < 20; trial++) {
      const d = Array.from(
        { length: EXACT_SIGNED_RANK_MAX_N },
        () => rng.normal() + 0.1 * (trial % 6),
      );
      const exact = signedRankTest(d);
      expect(exact.method).toBe('exact');
      const approx = signedRankTest(d, { method: 'normal' });
      expect(approx).toMatchObject({ method: 'normal', wPlus: exact.wPlus });
      expect(Math.abs(approx.pValue - exact.pValue)).toBeLessThan(5e-3);
      // In the tails, where the thresholds are, it errs on the side of a tie.
      if (exact.pValue < 0.02) expect(approx.pValue).toBeGreaterThanOrEqual(exact.pValue);
    }
    expect(
      signedRankTest([...Array.from({ length: EXACT_SIGNED_RANK_MAX_N }, (_, i) => i + 1), 51])
        .method,
    ).toBe('normal');
    // 51 of 51 positive: z = (1326 − 663 − 0.5) / √(51·52·103/24) ≈ 6.2.
    expect(signedRankTest(Array.from({ length: 51 }, (_, i) => i + 1)).pValue).toBeLessThan(1e-9);
    expect(erfc(0)).toBeCloseTo(1, 7);
    expect(erfc(1.959963984540054 / Math.SQRT2)).toBeCloseTo(0.05, 7);
    expect(erfc(-1)).toBeCloseTo(2 - 0.157299207050285, 7);
  });

  it('refuses differences that are not finite numbers', () => {
    expect(() => signedRankTest([1, Number.NaN])).toThrow(/differences\[1\]/);
    expect(() => signedRankTest([Infinity])).toThrow(/finite/);
  });
});

describe('holm', () => {
  it('steps down and stops at the first p-value over its threshold', () => {
    // Sorted: 0.005 ≤ 0.05/4, 0.01 ≤ 0.05/3, 0.03 > 0.05/2 stops; 0.04 is not rejected though ≤ 0.05.
    const d = holm([0.01, 0.04, 0.03, 0.005], 0.05);
    expect(d.map((x) => x.rejected)).toEqual([true, false, false, true]);
    expect(d.map((x) => x.threshold)).toEqual([0.05 / 3, 0.05 / 1, 0.05 / 2, 0.05 / 4]);
    // Plain Bonferroni would reject only 0.005 here; Holm rejects all three small ones.
    expect(holm([0.01, 0.02, 0.04], 0.05).map((x) => x.rejected)).toEqual([true, true, true]);
    expect(holm([], 0.05)).toEqual([]);
    expect(() => holm([0.5], 0)).toThrow(/alpha/);
    expect(() => holm([1.5], 0.05)).toThrow(/pValues\[0\]/);
  });
});

/** Rounds from a table: rows are rounds, [baselineMs, ...one time per finalist]. */
function roundsOf(ids: string[], rows: number[][]): RankingRound[] {
  return rows.map((row, round) => ({
    round,
    baselineMs: row[0]!,
    entrantMs: Object.fromEntries(ids.map((id, i) => [id, row[i + 1]!])),
  }));
}

describe('rankFinalists on hand-made rounds', () => {
  // a is twice as fast as the baseline in every round, b 1.25×, c as fast as the baseline; the
  // baseline drifts (round 3 is a slow period that slows everyone alike).
  const rows = Array.from({ length: 12 }, (_, r) => {
    const slow = r === 3 ? 1.4 : 1 + 0.01 * (r % 3);
    return [
      1000 * slow,
      500 * slow * (1 + 0.001 * r),
      800 * slow * (1 - 0.001 * r),
      1000 * slow * (1 + 0.002 * (r % 2)),
    ];
  });
  const input: FinalRankingInput = {
    entrants: ['c', 'a', 'b'],
    targets: [{ target: 'linux-x64', rounds: roundsOf(['a', 'b', 'c'], rows) }],
    formula: 'SUM',
    errorRate: 0.05,
    labels: { a: 'Ada', b: 'Bob', c: 'Cy' },
  };

  it('ranks by the median of per-round ratios and separates clear differences', () => {
    const ranking = rankFinalists(input);
    expect(ranking.entrants.map((e) => [e.entrant, e.place])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const a = ranking.entrants[0]!;
    expect(a.perTarget[0]!.speedup).toBeCloseTo(1000 / (500 * (1 + 0.001 * 5.5)), 3);
    expect(a.perTarget[0]!.rounds).toBe(12);
    expect(a.score).toBe(a.perTarget[0]!.speedup);
    expect([a.scoreCiLow, a.scoreCiHigh]).toEqual([a.perTarget[0]!.ciLow, a.perTarget[0]!.ciHigh]);
    expect(a.scoreCiLow).toBeLessThanOrEqual(a.score);
    expect(ranking.comparisons).toHaveLength(3);
    for (const c of ranking.comparisons) {
      // Ahead in all 12 rounds: the exact two-sided p is 2/4096.
      expect(c.pValue).toBeCloseTo(2 / 4096, 12);
      expect(c.distinguishable).toBe(true);
      expect(c.rounds).toBe(12);
    }
    expect(ranking.comparisons.map((c) => c.threshold).sort()).toEqual(
      [0.05 / 3, 0.05 / 2, 0.05].sort(),
    );
    expect(ranking.entrants.every((e) => e.tieReason === null && e.tiedWith.length === 0)).toBe(
      true,
    );
    expect(ranking.method).toMatch(/Wilcoxon signed-rank/);
    expect(ranking.method).toMatch(/Holm/);
    expect(ranking.method).toMatch(/5%/);
    expect(ranking.warnings).toEqual([]);
  });

  it('is deterministic and does not depend on the order of the finalists', () => {
    const once = rankFinalists(input);
    expect(rankFinalists(input)).toEqual(once);
    expect(rankFinalists({ ...input, entrants: ['b', 'c', 'a'] })).toEqual(once);
  });

  it('ties finalists it cannot tell apart and says why in one sentence', () => {
    // d alternates a little above and below c: as fast as c, in truth.
    const withD = rows.map((row, r) => [...row, row[3]! * (r % 2 === 0 ? 1.004 : 0.997)]);
    const ranking = rankFinalists({
      ...input,
      entrants: ['a', 'b', 'c', 'd'],
      targets: [{ target: 'linux-x64', rounds: roundsOf(['a', 'b', 'c', 'd'], withD) }],
      labels: { ...input.labels, d: 'Dee' },
    });
    const places = Object.fromEntries(ranking.entrants.map((e) => [e.entrant, e.place]));
    expect(places).toEqual({ a: 1, b: 2, c: 3, d: 3 });
    const c = ranking.entrants.find((e) => e.entrant === 'c')!;
    const d = ranking.entrants.find((e) => e.entrant === 'd')!;
    expect(c.tiedWith).toEqual(['d']);
    expect(d.tiedWith).toEqual(['c']);
    expect(c.tieReason).toMatch(
      /^Shares place 3 with Dee: over 12 rounds their scores differ by (less than 0\.1|[0-9.]+)% \(p = [0-9.]+\), which the judge cannot tell apart at a 5% error rate once corrected for all 6 comparisons\.$/,
    );
    expect(d.tieReason).toContain('with Cy');
    const cd = ranking.comparisons.find((x) => [x.a, x.b].sort().join() === 'c,d')!;
    expect(cd.distinguishable).toBe(false);
    expect(cd.pValue).toBeGreaterThan(0.05);
  });

  it('breaks ties of the point estimate by id, and ties equal finalists', () => {
    const same = Array.from({ length: 10 }, (_, r) => [1000 + r, 900 + r, 900 + r]);
    const ranking = rankFinalists({
      entrants: ['zed', 'amy'],
      targets: [{ target: 'linux-x64', rounds: roundsOf(['zed', 'amy'], same) }],
      formula: 'GEOMEAN',
      errorRate: 0.05,
    });
    expect(ranking.entrants.map((e) => [e.entrant, e.place])).toEqual([
      ['amy', 1],
      ['zed', 1],
    ]);
    expect(ranking.comparisons[0]).toMatchObject({
      a: 'amy',
      b: 'zed',
      pValue: 1,
      test: 'none',
      scoreDifference: 0,
    });
    expect(ranking.entrants[0]!.tieReason).toBe(
      'Shares place 1 with zed: over 10 rounds their scores differ by 0% (p = 1), which the judge cannot tell apart at a 5% error rate.',
    );
  });

  it('combines targets by the formula, round by round for the tests, with a bootstrap interval', () => {
    const t1 = roundsOf(
      ['a', 'b'],
      Array.from({ length: 10 }, (_, r) => [1000, 500 * (1 + 0.01 * (r % 3)), 1000]),
    );
    const t2 = roundsOf(
      ['a', 'b'],
      Array.from({ length: 10 }, (_, r) => [800, 800, 200 * (1 + 0.01 * (r % 4))]),
    );
    const base = { entrants: ['a', 'b'], errorRate: 0.05 } as const;
    const targets = [
      { target: 'linux-x64', rounds: t1 },
      { target: 'windows-x64', rounds: t2 },
    ];
    const sum = rankFinalists({ ...base, entrants: [...base.entrants], targets, formula: 'SUM' });
    const geo = rankFinalists({
      ...base,
      entrants: [...base.entrants],
      targets,
      formula: 'GEOMEAN',
    });
    const scoreOf = (r: typeof sum, id: string) => r.entrants.find((e) => e.entrant === id)!;
    // a: 2 (median of 1000/500·{1, 1.01, 1.02}) and 1; b: 1 and 4 (median of 800/200·{1 … 1.03}).
    expect(scoreOf(sum, 'a').score).toBeCloseTo(1000 / 505 + 1, 12);
    expect(scoreOf(geo, 'a').score).toBeCloseTo(Math.sqrt(1000 / 505), 12);
    expect(scoreOf(sum, 'b').score).toBeCloseTo(1 + 800 / 202, 12);
    for (const r of [sum, geo]) {
      expect(r.entrants[0]!.entrant).toBe('b');
      for (const e of r.entrants) {
        expect(e.perTarget.map((f) => f.target)).toEqual(['linux-x64', 'windows-x64']);
        expect(e.scoreCiLow).toBeLessThanOrEqual(e.score);
        expect(e.scoreCiHigh).toBeGreaterThanOrEqual(e.score);
      }
      expect(r.comparisons[0]!.distinguishable).toBe(true);
      expect(r.method).toMatch(/bootstrap/);
    }
    // b's per-round SUM score minus a's: (1 + 4/(1.0x)) − (2/(1.0y) + 1), median ≈ 1.98.
    expect(sum.comparisons[0]!.scoreDifference).toBeGreaterThan(1.9);
    expect(sum.comparisons[0]!.scoreDifference).toBeLessThan(2.05);
  });

  it('uses only the rounds both finalists have, on every target', () => {
    const rounds = roundsOf(
      ['a', 'b'],
      Array.from({ length: 12 }, () => [1000, 500, 1000]),
    );
    delete rounds[0]!.entrantMs.a;
    delete rounds[1]!.entrantMs.b;
    const ranking = rankFinalists({
      entrants: ['a', 'b'],
      targets: [{ target: 'linux-x64', rounds }],
      formula: 'SUM',
      errorRate: 0.05,
    });
    expect(ranking.entrants.map((e) => e.perTarget[0]!.rounds)).toEqual([11, 11]);
    expect(ranking.comparisons[0]!.rounds).toBe(10);
    expect(ranking.comparisons[0]!.pValue).toBeCloseTo(2 / 1024, 12);
  });

  it('warns when the rounds are too few to separate anyone', () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const rows = Array.from({ length: 8 }, () => [1000, 100, 200, 300, 400, 500, 600]);
    const ranking = rankFinalists({
      entrants: ids,
      targets: [{ target: 't', rounds: roundsOf(ids, rows) }],
      formula: 'SUM',
      errorRate: 0.05,
    });
    // 15 comparisons: the first Holm threshold is 0.0033 and 8 rounds give at best p = 2/256.
    expect(ranking.entrants.every((e) => e.place === 1)).toBe(true);
    expect(ranking.warnings).toHaveLength(1);
    expect(ranking.warnings[0]).toMatch(/cannot separate any two finalists.*at least 10 rounds/);
    const few = rankFinalists({
      entrants: ['a'],
      targets: [
        {
          target: 't',
          rounds: roundsOf(
            ['a'],
            [
              [1000, 500],
              [1000, 510],
            ],
          ),
        },
      ],
      formula: 'SUM',
      errorRate: 0.05,
    });
    expect(few.warnings[0]).toMatch(/finalist a has only 2 rounds/);
    expect(few.entrants[0]).toMatchObject({ place: 1, tiedWith: [], tieReason: null });
    expect(few.comparisons).toEqual([]);
  });

  it('needs exactly the rounds the start form says: one fewer cannot separate anyone, that many can', () => {
    expect(roundsToSeparateFinalists(3, 0.05)).toBe(7);
    expect(roundsToSeparateFinalists(6, 0.05)).toBe(10);
    for (const [finalists, errorRate] of [
      [2, 0.05],
      [3, 0.05],
      [4, 0.01],
      [6, 0.1],
    ] as const) {
      const needed = roundsToSeparateFinalists(finalists, errorRate);
      const ids = Array.from({ length: finalists }, (_, i) => `f${i}`);
      // Every finalist clearly apart from the next, in every round: only the rounds' count limits.
      const rankWith = (rounds: number) =>
        rankFinalists({
          entrants: ids,
          targets: [
            {
              target: 't',
              rounds: roundsOf(
                ids,
                Array.from({ length: rounds }, (_, r) => [
                  1000,
                  ...ids.map((_, i) => 100 * (i + 1) + r),
                ]),
              ),
            },
          ],
          formula: 'SUM',
          errorRate,
        });
      const enough = rankWith(needed);
      expect(enough.warnings).toEqual([]);
      expect(new Set(enough.entrants.map((e) => e.place)).size).toBe(finalists);
      const tooFew = rankWith(needed - 1);
      expect(tooFew.warnings.join('\n')).toMatch(
        new RegExp(`cannot separate any two finalists.*at least ${needed} rounds`),
      );
      expect(tooFew.entrants.every((e) => e.place === 1)).toBe(true);
    }
  });

  it('refuses input it cannot rank, naming what is wrong', () => {
    const ok = (): FinalRankingInput => ({
      entrants: ['a', 'b'],
      targets: [
        {
          target: 't',
          rounds: roundsOf(
            ['a', 'b'],
            Array.from({ length: 6 }, () => [1000, 500, 600]),
          ),
        },
      ],
      formula: 'SUM',
      errorRate: 0.05,
    });
    expect(() => rankFinalists(ok())).not.toThrow();
    const bad = (change: (i: FinalRankingInput) => void) => {
      const i = ok();
      change(i);
      return () => rankFinalists(i);
    };
    expect(bad((i) => (i.targets[0]!.rounds[2]!.baselineMs = 0))).toThrow(
      /round 2: the baseline's time must be a positive/,
    );
    expect(bad((i) => (i.targets[0]!.rounds[1]!.entrantMs.b = Number.NaN))).toThrow(
      /round 1: finalist b's time/,
    );
    expect(bad((i) => (i.targets[0]!.rounds[1]!.entrantMs.b = Infinity))).toThrow(
      /finalist b's time/,
    );
    expect(bad((i) => (i.targets[0]!.rounds[1]!.entrantMs.x = 5))).toThrow(
      /x is not one of the finalists/,
    );
    expect(bad((i) => (i.targets[0]!.rounds[3]!.round = 1))).toThrow(/round 1 is given twice/);
    expect(bad((i) => (i.targets[0]!.rounds[3]!.round = -1))).toThrow(/whole number/);
    expect(bad((i) => (i.errorRate = 0))).toThrow(/errorRate must be a fraction in \(0, 0.5\]/);
    expect(bad((i) => (i.errorRate = 0.6))).toThrow(/errorRate/);
    expect(bad((i) => (i.errorRate = Number.NaN))).toThrow(/errorRate/);
    expect(bad((i) => ((i as { formula: string }).formula = 'MAX'))).toThrow(
      /formula must be SUM or GEOMEAN/,
    );
    expect(bad((i) => (i.entrants = []))).toThrow(/at least one finalist/);
    expect(bad((i) => i.entrants.push('a'))).toThrow(/finalist a is listed twice/);
    expect(bad((i) => i.entrants.push(BASELINE_ENTRANT))).toThrow(/baseline is not a finalist/);
    expect(bad((i) => i.entrants.push('c'))).toThrow(/target t: finalist c has no round/);
    // An id that names a property every object inherits is still just an id.
    expect(bad((i) => i.entrants.push('constructor'))).toThrow(/finalist constructor has no round/);
    expect(bad((i) => (i.targets = []))).toThrow(/at least one target/);
    expect(bad((i) => i.targets.push({ ...i.targets[0]! }))).toThrow(/target t is given twice/);
    expect(bad((i) => (i.targets[0]!.rounds = []))).toThrow(/target t: no rounds/);
  });
});

describe('assignPlaces', () => {
  const order = ['A', 'B', 'C', 'D'].map((entrant, i): ScoredEntrant => ({
    entrant,
    perTarget: [],
    score: 4 - i,
    scoreCiLow: 0,
    scoreCiHigh: 9,
  }));
  const comparisons = (separated: string[]): PairwiseComparison[] =>
    order.flatMap((x, i) =>
      order.slice(i + 1).map((y) => ({
        a: x.entrant,
        b: y.entrant,
        scoreDifference: 1,
        pValue: 0.5,
        threshold: 0.05,
        distinguishable: separated.includes(x.entrant + y.entrant),
        rounds: 20,
        wPlus: 150,
        test: 'exact' as const,
      })),
    );

  it('places one below everyone found better, monotone', () => {
    expect(assignPlaces(order, comparisons([]))).toEqual([1, 1, 1, 1]);
    expect(assignPlaces(order, comparisons(['AB', 'AC', 'AD', 'BC', 'BD', 'CD']))).toEqual([
      1, 2, 3, 4,
    ]);
    // Only A is told apart from D: D is 2nd in the judge's eyes, and B and C share 1st with A.
    expect(assignPlaces(order, comparisons(['AD']))).toEqual([1, 1, 1, 2]);
    // B and C both beat D, nobody separates A from B or C: place 3 for D.
    expect(assignPlaces(order, comparisons(['BD', 'CD']))).toEqual([1, 1, 1, 3]);
  });

  it('never lets two finalists the judge tells apart share a place, though the tests are not transitive', () => {
    // A > C and C > D, but A vs D and everyone vs B are unclear: "1 + finalists better" alone would
    // give C and D both place 2.
    expect(assignPlaces(order, comparisons(['AC', 'CD']))).toEqual([1, 1, 2, 3]);
  });
});

describe('rankingInputFromRounds', () => {
  const run = (entrant: string, wallMs: number, more: Partial<FinalRun> = {}): FinalRun => ({
    entrant,
    wallMs,
    cpuMs: wallMs,
    correct: true,
    failure: null,
    evidence: null,
    ...more,
  });
  const round = (
    n: number,
    runs: FinalRun[],
    finishedAt = `2026-12-01T17:00:${String(10 + n).padStart(2, '0')}.000Z`,
  ): FinalRound => ({
    round: n,
    order: runs.map((r) => r.entrant),
    runs,
    discardedAttempts: 0,
    hostFingerprintHash: 'h1',
    finishedAt,
  });
  const disturbed = {
    cpuMs: 1,
    utilization: 1,
    involuntaryContextSwitches: 0,
    otherTasksMs: 50,
    stealMs: 0,
    cpuMigrations: 0,
    tasksStarted: 0,
    tickMs: 4,
    residency: [],
    disturbed: ['other tasks ran 50 ms on the pinned CPU'],
  };

  it('counts a round for a finalist only when its run and the baseline run are correct, disturbed runs the runner kept included', () => {
    const input = rankingInputFromRounds({
      entrants: ['x', 'y', 'z'],
      formula: 'GEOMEAN',
      errorRate: 0.05,
      labels: { x: 'Xi' },
      sessions: [
        {
          target: 'linux-x64',
          rounds: [
            round(0, [run(BASELINE_ENTRANT, 1000), run('x', 500), run('y', 400), run('z', 900)]),
            round(1, [
              run(BASELINE_ENTRANT, 1000),
              run('x', 510, { correct: false, failure: 'wrong output' }),
              run('y', 410),
              run('z', 1),
            ]),
            round(2, [
              run(BASELINE_ENTRANT, 1000, { evidence: disturbed }),
              run('x', 505),
              run('y', 405),
            ]),
            round(3, [
              run(BASELINE_ENTRANT, 990),
              run('x', 495),
              run('y', 399, { evidence: disturbed }),
            ]),
            // Round 3 again, finished later (a part re-timed a checkpointed round): the first counts.
            round(
              3,
              [run(BASELINE_ENTRANT, 1), run('x', 1), run('y', 1)],
              '2026-12-01T18:00:00.000Z',
            ),
            round(4, [run('x', 500), run('y', 400)]),
          ],
        },
      ],
    });
    expect(input.targets).toEqual([
      {
        target: 'linux-x64',
        rounds: [
          { round: 0, baselineMs: 1000, entrantMs: { x: 500, y: 400, z: 900 } },
          { round: 1, baselineMs: 1000, entrantMs: { y: 410, z: 1 } },
          { round: 2, baselineMs: 1000, entrantMs: { x: 505, y: 405 } },
          { round: 3, baselineMs: 990, entrantMs: { x: 495, y: 399 } },
        ],
      },
    ]);
    expect(input).toMatchObject({
      entrants: ['x', 'y', 'z'],
      formula: 'GEOMEAN',
      errorRate: 0.05,
      labels: { x: 'Xi' },
      excluded: [],
    });
    expect(() => rankFinalists(input)).not.toThrow();
  });

  it('leaves out, with the reason, a finalist with no counted round on some target', () => {
    const input = rankingInputFromRounds({
      entrants: ['x', 'y'],
      formula: 'SUM',
      errorRate: 0.05,
      sessions: [
        {
          target: 'linux-x64',
          rounds: [round(0, [run(BASELINE_ENTRANT, 1000), run('x', 500), run('y', 400)])],
        },
        {
          target: 'windows-x64',
          rounds: [
            round(0, [run(BASELINE_ENTRANT, 1000), run('x', 500), run('y', 0, { correct: false })]),
          ],
        },
      ],
    });
    expect(input.entrants).toEqual(['x']);
    expect(input.excluded).toEqual([
      {
        entrant: 'y',
        reason: expect.stringMatching(
          /^no round on windows-x64 in which both its run and the baseline's were correct/,
        ),
      },
    ]);
    expect(input.targets[0]!.rounds[0]!.entrantMs).toEqual({ x: 500 });
    const ranking = rankFinalists(input);
    expect(ranking.entrants.map((e) => e.entrant)).toEqual(['x']);
    expect(ranking.excluded).toEqual(input.excluded);
  });
});

// ---------------------------------------------------------------------------------------------
// Simulated final evaluations.
//
// A finalist with true speedup s takes 1000/s ms on every target. Each run gets lognormal jitter
// (σ = 4%); every round has a drift common to all of its runs (σ = 5%), and each contest has a slow
// period of 4 consecutive rounds that makes every run in them 20–50% slower (a noisy neighbour).
// The drift and the slow period hit the baseline and every finalist of a round alike, which is what
// the interleaved schedule is for; the jitter is what the judge has to see through.
// ---------------------------------------------------------------------------------------------

const JITTER = 0.04;
const ROUND_DRIFT = 0.05;
const ROUNDS = 20;

function simulateContest(
  rng: Rng,
  finalists: Record<string, number>,
  opts: { targets?: string[]; formula?: 'SUM' | 'GEOMEAN'; errorRate?: number } = {},
): FinalRankingInput {
  const ids = Object.keys(finalists);
  const targets = (opts.targets ?? ['linux-x64']).map((target) => {
    const slowStart = rng.int(ROUNDS - 3);
    const slowFactor = 1.2 + 0.3 * rng.next();
    const rounds: RankingRound[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const drift =
        Math.exp(ROUND_DRIFT * rng.normal()) *
        (round >= slowStart && round < slowStart + 4 ? slowFactor : 1);
      const time = (trueMs: number) => trueMs * drift * Math.exp(JITTER * rng.normal());
      const baselineMs = time(1000);
      const entrantMs = Object.fromEntries(ids.map((id) => [id, time(1000 / finalists[id]!)]));
      rounds.push({ round, baselineMs, entrantMs });
    }
    return { target, rounds };
  });
  return {
    entrants: ids,
    targets,
    formula: opts.formula ?? 'SUM',
    errorRate: opts.errorRate ?? 0.05,
  };
}

describe('simulated final evaluations (20 rounds, 4% jitter, round drift and a slow period)', () => {
  it('puts finalists 10% apart in their true order, each on its own place', () => {
    const rng = createRng(20261201);
    // Ids in reverse of the true order, so a ranking that kept the input order would fail.
    const finalists = { f: 1.0, e: 1.1, d: 1.21, c: 1.331, b: 1.4641, a: 1.61051 };
    const truth = ['a', 'b', 'c', 'd', 'e', 'f'];
    const contests = 100;
    let recovered = 0;
    let rightOrder = 0;
    for (let k = 0; k < contests; k++) {
      const multiTarget = k % 2 === 1;
      const ranking = rankFinalists(
        simulateContest(
          rng,
          finalists,
          multiTarget ? { targets: ['linux-x64', 'windows-x64'], formula: 'GEOMEAN' } : {},
        ),
      );
      const order = ranking.entrants.map((e) => e.entrant);
      if (order.join() === truth.join()) rightOrder++;
      if (order.join() === truth.join() && ranking.entrants.every((e, i) => e.place === i + 1))
        recovered++;
    }
    console.log(
      `10% apart: right order ${rightOrder}/${contests}, right order with 6 distinct places ${recovered}/${contests}`,
    );
    expect(rightOrder).toBe(contests);
    expect(recovered / contests).toBeGreaterThanOrEqual(0.95);
  });

  it('ties equal finalists: a copy of the baseline with the baseline, and two equal solutions', () => {
    const rng = createRng(42);
    const errorRate = 0.05;
    const contests = 400;
    let copiesTied = 0;
    let fastTied = 0;
    let bothTied = 0;
    let copyCoversOne = 0;
    let groupsSeparated = 0;
    for (let k = 0; k < contests; k++) {
      const ranking = rankFinalists(
        simulateContest(rng, { copy1: 1, copy2: 1, fast1: 1.5, fast2: 1.5 }, { errorRate }),
      );
      const place = (id: string) => ranking.entrants.find((e) => e.entrant === id)!.place;
      const copies = place('copy1') === place('copy2');
      const fast = place('fast1') === place('fast2');
      if (copies) copiesTied++;
      if (fast) fastTied++;
      if (copies && fast) bothTied++;
      if (Math.max(place('fast1'), place('fast2')) < Math.min(place('copy1'), place('copy2')))
        groupsSeparated++;
      // Tied with the baseline: a copy's interval holds 1 (it covers the true 1 at least 95% of the time).
      const copy = ranking.entrants.find((e) => e.entrant === 'copy1')!;
      if (copy.scoreCiLow <= 1 && 1 <= copy.scoreCiHigh) copyCoversOne++;
    }
    console.log(
      `equal pairs: copies tied ${copiesTied}/${contests}, equal solutions tied ${fastTied}/${contests}, ` +
        `both ${bothTied}/${contests}; copy's interval holds 1 ${copyCoversOne}/${contests}; ` +
        `faster pair above the copies ${groupsSeparated}/${contests}`,
    );
    // Separating either equal pair is a family-wise error: at most errorRate, give or take 3 standard errors.
    const allowance = errorRate + 3 * Math.sqrt((errorRate * (1 - errorRate)) / contests);
    expect(1 - bothTied / contests).toBeLessThanOrEqual(allowance);
    expect(1 - copyCoversOne / contests).toBeLessThanOrEqual(allowance);
    expect(groupsSeparated / contests).toBeGreaterThanOrEqual(0.95);
  });

  it('separates all-equal finalists in at most the stated error rate of contests (family-wise)', () => {
    const rng = createRng(1234567);
    const errorRate = 0.05;
    const contests = 400;
    let falseSeparations = 0;
    let uncorrected = 0;
    for (let k = 0; k < contests; k++) {
      const speedup = 1 + (k % 4) * 0.25;
      const ranking = rankFinalists(
        simulateContest(
          rng,
          { p: speedup, q: speedup, r: speedup, s: speedup, t: speedup },
          { errorRate },
        ),
      );
      if (ranking.entrants.some((e) => e.place !== 1)) falseSeparations++;
      // The same comparisons without Holm's correction: shows the simulation can see a missing one.
      if (ranking.comparisons.some((c) => c.pValue <= errorRate)) uncorrected++;
    }
    const rate = falseSeparations / contests;
    const allowance = errorRate + 3 * Math.sqrt((errorRate * (1 - errorRate)) / contests);
    console.log(
      `all equal (5 finalists, 10 comparisons): false separation in ${falseSeparations}/${contests} contests (${(rate * 100).toFixed(1)}%), ` +
        `uncorrected ${uncorrected}/${contests} (${((uncorrected / contests) * 100).toFixed(1)}%)`,
    );
    expect(rate).toBeLessThanOrEqual(allowance);
    expect(uncorrected / contests).toBeGreaterThan(allowance);
  });
});
