// Human-readable warnings about how trustworthy a speedup measurement is (noisy host, drift, …).
import { median, outliers, summarize } from './descriptive';
import { pairRatios, type SpeedupEstimate, type StopPolicy, type TimedPair } from './speedup';

/**
 * Run-to-run coefficient of variation above which a side is called noisy. A quiet pinned core
 * shows 1–2%; interference bursts that hit one run in ten push it past 5%.
 */
const NOISY_CV = 0.05;
/**
 * Change of a side's median time between the first and last third of the runs that counts as
 * drift (thermal throttling, a neighbour starting up). Medians of thirds are robust to single slow
 * runs; 5% is ~3 standard errors of their difference at 2% jitter and 10 pairs.
 */
const DRIFT_REL = 0.05;
/** Below this many pairs, thirds are too small (fewer than 2 runs) to say anything about drift. */
const DRIFT_MIN_PAIRS = 6;
/**
 * Change of the median ratio between the first and last third. Drift that slows B and S alike
 * cancels in the ratio; drift that does not (e.g. only the memory-bound side suffers) biases it.
 */
const RATIO_DRIFT_REL = 0.05;
/** Share of a side's runs beyond the Tukey fences (see `outliers`) worth mentioning. */
const OUTLIER_SHARE = 0.15;
/**
 * Runs shorter than this are dominated by process start-up, sandbox set-up and timer granularity,
 * which are the same for both sides and cap the speedup that can be seen.
 */
const SHORT_RUN_MS = 50;

const pct = (x: number, digits = 0): string => `${(x * 100).toFixed(digits)}%`;

function thirdsMedians(values: readonly number[]): [number, number] {
  const third = Math.floor(values.length / 3);
  return [median(values.slice(0, third)), median(values.slice(values.length - third))];
}

function driftMessage(what: string, first: number, last: number): string | null {
  const change = last / first - 1;
  if (Math.abs(change) <= DRIFT_REL) return null;
  const direction = change > 0 ? 'slower' : 'faster';
  return `drift: ${what} got ${pct(Math.abs(change))} ${direction} between the first and last third of the runs`;
}

/**
 * Warnings to show next to a speedup. `policy`, when given, lets the flags say whether the
 * interval missed its target after the whole budget.
 */
export function noiseFlags(
  pairs: readonly TimedPair[],
  estimate: SpeedupEstimate,
  policy?: StopPolicy,
): string[] {
  const ratios = pairRatios(pairs);
  const sides = [
    ['baseline', pairs.map((p) => p.baselineMs)],
    ['solution', pairs.map((p) => p.solutionMs)],
  ] as const;
  const flags: string[] = [];

  for (const [side, times] of sides) {
    const s = summarize(times);
    if (s.n >= 2 && s.cv > NOISY_CV) {
      flags.push(
        `noisy host: ${side} runs vary by ${pct(s.cv)} (coefficient of variation; a quiet core shows under ${pct(NOISY_CV)})`,
      );
    }
    const slow = outliers(times).high.length;
    if (slow > 0 && slow / s.n > OUTLIER_SHARE) {
      flags.push(
        `interference: ${slow} of ${s.n} ${side} runs were much slower than the rest (Tukey fences on log time)`,
      );
    }
    if (s.median < SHORT_RUN_MS) {
      flags.push(
        `short runs: the ${side} takes ${s.median.toFixed(1)} ms, under ${SHORT_RUN_MS} ms; process start-up and timer resolution weigh on the speedup`,
      );
    }
  }

  if (pairs.length >= DRIFT_MIN_PAIRS) {
    for (const [side, times] of sides) {
      const [first, last] = thirdsMedians(times);
      const msg = driftMessage(side, first, last);
      if (msg) flags.push(msg);
    }
    const [first, last] = thirdsMedians(ratios);
    const change = last / first - 1;
    if (Math.abs(change) > RATIO_DRIFT_REL) {
      flags.push(
        `drift: the speedup moved from ${first.toFixed(3)} in the first third of the runs to ${last.toFixed(3)} in the last (${change > 0 ? '+' : '−'}${pct(Math.abs(change))})`,
      );
    }
  }

  if (
    estimate.guaranteedConfidence !== null &&
    estimate.guaranteedConfidence < estimate.confidence - 1e-12
  ) {
    flags.push(
      `too few pairs: with ${estimate.pairs} pairs the interval covers the true speedup only ${pct(estimate.guaranteedConfidence, 1)} of the time, not ${pct(estimate.confidence)}`,
    );
  }
  if (policy && estimate.pairs >= policy.maxPairs && estimate.halfWidthRel > policy.precision) {
    flags.push(
      `interval wider than the target precision after the maximum runs: ±${pct(estimate.halfWidthRel, 1)} after ${estimate.pairs} pairs, target ±${pct(policy.precision, 1)}`,
    );
  }
  return flags;
}
