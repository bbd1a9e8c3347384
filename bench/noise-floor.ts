// What the reproducibility targets would take on this host: the per-pair noise measured on the
// clean pairs of a condition's judgings, and from it the pairs (and minutes) a judging needs for the
// spread of several judgings to stay within a target. Printed by `bench judge reproducibility`, so
// a target the default budget misses says what meeting it would cost instead of only "missed".
import type { JudgingResult } from '../contracts';
import { median } from '../lib/core/stats';

/**
 * d2(r): the expected range of r independent standard normal draws (the spread of r judgings is
 * about d2 · the standard error of one judging's speedup, in relative terms).
 */
const EXPECTED_RANGE: Record<number, number> = {
  2: 1.128,
  3: 1.693,
  4: 2.059,
  5: 2.326,
  6: 2.534,
  7: 2.704,
  8: 2.847,
  9: 2.97,
  10: 3.078,
};

/** The standard error of a median is √(π/2) ≈ 1.2533 times that of a mean, for normal noise. */
const MEDIAN_EFFICIENCY = Math.sqrt(Math.PI / 2);

/** Wall-time ratios (baseline / solution) of the timed pairs that were kept, in pair order. */
export function cleanPairRatios(result: JudgingResult): number[] {
  return cleanPairs(result).map((p) => p.B / p.S);
}

/** The kept pairs' wall times in pair order: what `describeSideDrift` looks at. */
function cleanPairs(result: JudgingResult): { B: number; S: number }[] {
  const runs = result.stages.measure?.runs ?? [];
  const byPair = new Map<number, { B?: number; S?: number }>();
  for (const run of runs) {
    if (run.kind !== 'timed' || run.pair === null || run.discarded) continue;
    const entry = byPair.get(run.pair) ?? {};
    entry[run.side === 'baseline' ? 'B' : 'S'] = run.stats.wallMs;
    byPair.set(run.pair, entry);
  }
  return [...byPair.values()].flatMap((p) => (p.B && p.S ? [{ B: p.B, S: p.S }] : []));
}

/** Lag-1 autocorrelation of a series (null below 8 values). */
function lag1(xs: readonly number[]): number | null {
  if (xs.length < 8) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    den += (x - mean) ** 2;
    if (i > 0) num += (x - mean) * (xs[i - 1]! - mean);
  });
  return den === 0 ? null : num / den;
}

/**
 * Where a spread between judgings came from, one line per judging: each side's median time (which
 * side moved between judgings), the speedup of the first and the second half of its pairs (drift
 * within the judging) and the lag-1 autocorrelation of its pairs' log-ratios (pairs that are not
 * independent make an interval narrower than it should be).
 */
export function describeSideDrift(judgings: readonly { result: JudgingResult }[]): string[] {
  const lines = [
    '  #  baseline ms  solution ms  speedup 1st half → 2nd half  lag-1 autocorrelation of log-ratios',
  ];
  judgings.forEach((j, i) => {
    const pairs = cleanPairs(j.result);
    if (pairs.length < 2) return;
    const half = Math.floor(pairs.length / 2);
    const halfSpeedup = (ps: typeof pairs) => median(ps.map((p) => p.B / p.S)).toFixed(3);
    const rho = lag1(pairs.map((p) => Math.log(p.B / p.S)));
    lines.push(
      `  ${i + 1}  ${median(pairs.map((p) => p.B))
        .toFixed(1)
        .padStart(11)}  ${median(pairs.map((p) => p.S))
        .toFixed(1)
        .padStart(11)}  ` +
        `${halfSpeedup(pairs.slice(0, half))} → ${halfSpeedup(pairs.slice(half))}`.padEnd(28) +
        `  ${rho === null ? '-' : rho.toFixed(2)}`,
    );
  });
  return lines;
}

/** A robust per-pair coefficient of variation: 1.4826 · the median absolute deviation of log ratios. */
export function robustCv(ratios: readonly number[]): number | null {
  if (ratios.length < 5) return null;
  const logs = ratios.map(Math.log);
  const mid = median(logs);
  return 1.4826 * median(logs.map((x) => Math.abs(x - mid)));
}

export interface NoiseFloor {
  /** Per-pair coefficient of variation on clean pairs. */
  perPairCv: number;
  cleanPairs: number;
  /** Attempted pairs (clean + discarded) per clean pair: the cost of disturbance. */
  attemptsPerCleanPair: number;
  /** Seconds a judging spends per attempted pair, everything included (builds and tests too). */
  secondsPerAttempt: number;
  /** Clean pairs per judging for the expected spread of `judgings` judgings to equal `target`. */
  pairsNeeded: number;
  /** What a judging with that many pairs would take, at the seconds per attempt measured. */
  secondsNeeded: number;
  /** The run policy's precision (95% half-width) that stops a judging at about that many pairs. */
  precisionNeeded: number;
}

/**
 * The noise floor of a condition from its judgings' results and wall times, for a spread target
 * (a fraction: 0.02 for 2%); null when too few clean pairs were timed to say.
 */
export function noiseFloor(
  judgings: readonly { result: JudgingResult; seconds: number }[],
  target: number,
): NoiseFloor | null {
  const ratios = judgings.flatMap((j) => cleanPairRatios(j.result));
  const perPairCv = robustCv(ratios);
  const range = EXPECTED_RANGE[Math.min(10, Math.max(2, judgings.length))]!;
  if (perPairCv === null || perPairCv === 0) return null;
  const attempts = judgings.reduce((sum, j) => sum + attemptedPairs(j.result), 0);
  const seconds = judgings.reduce((sum, j) => sum + j.seconds, 0);
  const attemptsPerCleanPair = attempts / ratios.length;
  const secondsPerAttempt = seconds / attempts;
  // spread ≈ range · SE, SE ≈ MEDIAN_EFFICIENCY · cv / √n  ⇒  n = (range · efficiency · cv / target)²
  const pairsNeeded = Math.ceil(((range * MEDIAN_EFFICIENCY * perPairCv) / target) ** 2);
  return {
    perPairCv,
    cleanPairs: ratios.length,
    attemptsPerCleanPair,
    secondsPerAttempt,
    pairsNeeded,
    secondsNeeded: pairsNeeded * attemptsPerCleanPair * secondsPerAttempt,
    // The 95% half-width is about 1.96 standard errors, and the spread about `range` of them.
    precisionNeeded: (1.96 * target) / range,
  };
}

function attemptedPairs(result: JudgingResult): number {
  const pairs = new Set<number>();
  for (const run of result.stages.measure?.runs ?? [])
    if (run.kind === 'timed' && run.pair !== null) pairs.add(run.pair);
  return pairs.size;
}

/** The lines the bench prints under a condition's table. */
export function describeNoiseFloor(floor: NoiseFloor | null, target: number): string[] {
  if (!floor) return ['  noise floor: too few clean pairs to say'];
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return [
    `  noise floor: per-pair CV ${pct(floor.perPairCv)} on ${floor.cleanPairs} clean pairs; ` +
      `${floor.attemptsPerCleanPair.toFixed(2)} attempts per clean pair; ${floor.secondsPerAttempt.toFixed(2)} s per attempt`,
    `  a spread ≤ ${pct(target)} takes at least ${floor.pairsNeeded} clean pairs per judging (more if the host drifts between judgings): ` +
      `≈ ${(floor.secondsNeeded / 60).toFixed(1)} min per judging here ` +
      `(--precision ${floor.precisionNeeded.toFixed(3)} --max-pairs ${Math.ceil(floor.pairsNeeded * 1.5)})`,
  ];
}
