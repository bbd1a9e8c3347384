// Descriptive statistics of run times: summaries, quantiles and Tukey outliers, all pure.

/** Throws unless every value is a positive finite number; `what` names the values in the message. */
export function assertPositiveTimes(values: readonly number[], what: string): void {
  if (values.length === 0) throw new Error(`${what}: need at least one time, got none`);
  values.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw new Error(`${what}[${i}] must be a positive finite number of milliseconds, got ${v}`);
    }
  });
}

/** Ascending copy. */
export function sorted(values: readonly number[]): number[] {
  return [...values].sort((x, y) => x - y);
}

/** Median of an ascending array; the mean of the two middle values when the length is even. */
export function medianOfSorted(xs: readonly number[]): number {
  const n = xs.length;
  if (n === 0) throw new Error('median of an empty list');
  const mid = n >> 1;
  return n % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

export function median(values: readonly number[]): number {
  return medianOfSorted(sorted(values));
}

/**
 * Quantile of an ascending array by linear interpolation between order statistics (Hyndman & Fan
 * type 7, the default of R and NumPy), so p10/p90 agree with what an organizer computes by hand.
 */
export function quantileOfSorted(xs: readonly number[], p: number): number {
  const n = xs.length;
  if (n === 0) throw new Error('quantile of an empty list');
  if (!(p >= 0 && p <= 1)) throw new Error(`quantile probability must be in [0, 1], got ${p}`);
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return xs[lo]! + (h - lo) * (xs[hi]! - xs[lo]!);
}

export interface TimeSummary {
  n: number;
  min: number;
  max: number;
  median: number;
  mean: number;
  /** Sample standard deviation (n − 1 denominator); 0 for a single sample. */
  stddev: number;
  /** Median absolute deviation from the median, unscaled (multiply by 1.4826 for a normal σ). */
  mad: number;
  /** stddev / mean. Sensitive to the long right tail on purpose: that tail is the noise we report. */
  cv: number;
  p10: number;
  p90: number;
}

export function summarize(samplesMs: readonly number[]): TimeSummary {
  assertPositiveTimes(samplesMs, 'samplesMs');
  const xs = sorted(samplesMs);
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const ss = xs.reduce((s, x) => s + (x - mean) ** 2, 0);
  const stddev = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
  const med = medianOfSorted(xs);
  return {
    n,
    min: xs[0]!,
    max: xs[n - 1]!,
    median: med,
    mean,
    stddev,
    mad: median(xs.map((x) => Math.abs(x - med))),
    cv: stddev / mean,
    p10: quantileOfSorted(xs, 0.1),
    p90: quantileOfSorted(xs, 0.9),
  };
}

/** Tukey's multiplier: 1.5 × IQR beyond the quartiles. */
const TUKEY_K = 1.5;
/**
 * Fences never come closer to the median than this (relative). With 1% jitter the IQR is ~1.3%, so
 * bare Tukey fences would call an ordinary run 3% slow an outlier; a flag should mean interference.
 */
const MIN_OUTLIER_DISTANCE_REL = 0.05;

export interface Outliers {
  /** Indices (into the input) of runs below the low fence: suspiciously fast. */
  low: number[];
  /** Indices of runs above the high fence: slowed down, typically by interference. */
  high: number[];
  lowFenceMs: number;
  highFenceMs: number;
}

/**
 * Tukey fences on log times: run times are multiplicative (a run is "20% slower", not "200 ms
 * slower"), and the log makes the fences symmetric in ratio terms. Outliers are reported, not
 * removed: the median of ratios is already robust to them.
 */
export function outliers(samplesMs: readonly number[]): Outliers {
  assertPositiveTimes(samplesMs, 'samplesMs');
  const logs = sorted(samplesMs.map(Math.log));
  const q1 = quantileOfSorted(logs, 0.25);
  const q3 = quantileOfSorted(logs, 0.75);
  const med = medianOfSorted(logs);
  const iqr = q3 - q1;
  const minDistance = Math.log1p(MIN_OUTLIER_DISTANCE_REL);
  const lowFence = Math.min(q1 - TUKEY_K * iqr, med - minDistance);
  const highFence = Math.max(q3 + TUKEY_K * iqr, med + minDistance);
  const low: number[] = [];
  const high: number[] = [];
  samplesMs.forEach((x, i) => {
    const l = Math.log(x);
    if (l < lowFence) low.push(i);
    else if (l > highFence) high.push(i);
  });
  return { low, high, lowFenceMs: Math.exp(lowFence), highFenceMs: Math.exp(highFence) };
}
