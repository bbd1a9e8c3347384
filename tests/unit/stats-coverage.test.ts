// Checks by simulation that the judge's 95% interval covers the true speedup about 95% of the time.
import { describe, expect, it } from 'vitest';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import {
  createRng,
  DEFAULT_CONFIDENCE,
  JUDGING_CONFIDENCE,
  disturbanceDecision,
  disturbanceReasons,
  median,
  orderStatisticRank,
  resolveDisturbance,
  shouldStop,
  simulatePairs,
  speedupEstimate,
  type IntervalMethod,
  type NoiseModel,
  type RunObservation,
  type StopPolicy,
} from '../../lib/core/stats';

/*
 * Noise model (lib/core/stats/noise-model.ts, SHARED_VM_NOISE): every run gets 2% lognormal jitter;
 * one run in ten is hit by interference that makes it 10–50% slower; slow periods of ~7 runs
 * (a noisy neighbour) slow every run inside them by one shared 10–40%, so both runs of a pair
 * inside a period slow down together. Each component hits B and S with the same probability and
 * size, so log(b/s) is symmetric about log(trueRatio): the median of the pairwise ratios — the
 * quantity the estimator targets — is exactly the nominal ratio. The first test checks that claim
 * on a very large sample before the coverage tests rely on it.
 */

const EXPERIMENTS = 1000;

function coverage(opts: {
  seed: number;
  pairs: number;
  trueRatio: number;
  noise?: Partial<NoiseModel>;
  method?: IntervalMethod;
  experiments?: number;
}) {
  const rng = createRng(opts.seed);
  const experiments = opts.experiments ?? EXPERIMENTS;
  let covered = 0;
  const widths: number[] = [];
  for (let e = 0; e < experiments; e++) {
    const pairs = simulatePairs(rng, {
      pairs: opts.pairs,
      baselineMs: 1000,
      trueRatio: opts.trueRatio,
      noise: opts.noise,
    });
    const est = speedupEstimate(pairs, { method: opts.method, seed: e, resamples: 1000 });
    if (est.ciLow <= opts.trueRatio && opts.trueRatio <= est.ciHigh) covered++;
    widths.push(est.halfWidthRel);
  }
  return { coverage: covered / experiments, medianHalfWidth: median(widths) };
}

/** The judge's loop: add a pair, estimate, stop when precise or out of budget. */
function sequentialCoverage(opts: {
  seed: number;
  policy: StopPolicy;
  method: IntervalMethod;
  experiments: number;
  noise?: Partial<NoiseModel>;
  /** The level the interval is computed at (the judge's is JUDGING_CONFIDENCE). */
  confidence?: number;
}) {
  const rng = createRng(opts.seed);
  const trueRatio = 1.37;
  let covered = 0;
  for (let e = 0; e < opts.experiments; e++) {
    const all = simulatePairs(rng, {
      pairs: opts.policy.maxPairs,
      baselineMs: 1000,
      trueRatio,
      noise: opts.noise,
    });
    for (let n = 1; n <= opts.policy.maxPairs; n++) {
      const est = speedupEstimate(all.slice(0, n), {
        method: opts.method,
        seed: e,
        resamples: 500,
        confidence: opts.confidence,
      });
      if (shouldStop(est, opts.policy).stop) {
        if (est.ciLow <= trueRatio && trueRatio <= est.ciHigh) covered++;
        break;
      }
    }
  }
  return covered / opts.experiments;
}

/** Coverage through the stopping rule at ±1% and ±2%, on quiet and noisier jitter: 92–99%. */
function expectCoverageThroughStopRule(method: IntervalMethod, seed: number, experiments: number) {
  for (const [i, precision] of [0.01, 0.02].entries()) {
    for (const jitterSigma of [0.01, 0.03]) {
      const cov = sequentialCoverage({
        seed: seed + i,
        policy: { minPairs: 5, maxPairs: 30, precision },
        method,
        experiments,
        noise: { jitterSigma },
      });
      expect(cov).toBeGreaterThanOrEqual(0.92);
      expect(cov).toBeLessThanOrEqual(0.99);
    }
  }
}

describe('the estimator targets the nominal ratio under the noise model', () => {
  it.each([1.0, 1.37, 3.0])('median of 100 001 simulated ratios ≈ %f', (trueRatio) => {
    const pairs = simulatePairs(createRng(17), { pairs: 100_001, baselineMs: 1000, trueRatio });
    // The standard error of this median is ~0.02%; a 0.2% miss would mean a biased noise model.
    const medianRatio = speedupEstimate(pairs, { method: 'order-statistic' }).speedup;
    expect(medianRatio / trueRatio).toBeCloseTo(1, 2.7);
  });
});

describe('coverage of the median of ratios’ 95% interval (order statistics, 1000 simulated judgings each)', () => {
  const cases: { pairs: number; trueRatio: number; jitterSigma: number }[] = [];
  for (const pairs of [10, 30]) {
    for (const trueRatio of [1.0, 1.37, 3.0]) cases.push({ pairs, trueRatio, jitterSigma: 0.02 });
    for (const jitterSigma of [0.01, 0.03]) cases.push({ pairs, trueRatio: 1.37, jitterSigma });
  }
  it.each(cases.map((c, i) => ({ ...c, seed: 1000 + i })))(
    'n=$pairs ratio=$trueRatio jitter=$jitterSigma',
    ({ pairs, trueRatio, jitterSigma, seed }) => {
      const { coverage: cov } = coverage({
        seed,
        pairs,
        trueRatio,
        noise: { jitterSigma },
        method: 'order-statistic',
      });
      expect(cov).toBeGreaterThanOrEqual(0.9);
      expect(cov).toBeLessThanOrEqual(0.99);
      // The order-statistic interval's coverage is exact for independent pairs (97.9% at n=10,
      // 95.7% at n=30); 2.5 points is ~4 standard errors of a 1000-run estimate.
      const exact = orderStatisticRank(pairs, 0.95).coverage;
      expect(Math.abs(cov - exact)).toBeLessThan(0.025);
    },
  );

  it('keeps its coverage through the stopping rule (min 5, max 30 pairs, ±1% and ±2%)', () => {
    expectCoverageThroughStopRule('order-statistic', 50, 600);
  });
});

describe('the percentile bootstrap (kept for comparison, not used by the judge)', () => {
  it('covers roughly 95% at a fixed n of 30', () => {
    const { coverage: cov } = coverage({
      seed: 77,
      pairs: 30,
      trueRatio: 1.37,
      method: 'bootstrap',
      experiments: 500,
    });
    expect(cov).toBeGreaterThanOrEqual(0.9);
    expect(cov).toBeLessThanOrEqual(0.99);
  });

  it('undercovers when the stopping rule picks the moment to stop, where order statistics do not', () => {
    const run = (method: IntervalMethod) =>
      sequentialCoverage({
        seed: 78,
        policy: { minPairs: 5, maxPairs: 30, precision: 0.02 },
        method,
        experiments: 400,
        noise: { jitterSigma: 0.01 },
      });
    const boot = run('bootstrap');
    const order = run('order-statistic');
    // Measured with this seed: bootstrap 91.3%, order statistics 96.3%. Over other precisions and
    // jitters the bootstrap ranged 87–94%, order statistics 94–97%.
    expect(boot).toBeLessThan(0.925);
    expect(order).toBeGreaterThanOrEqual(0.93);
  });
});

/*
 * Contaminated runs: other work shares the pinned CPU now and then. A run is hit with a probability
 * proportional to its length (a burst is more likely to land in a longer run, so the slower side —
 * usually the baseline — is hit more often, which biases the ratio), and a hit slows it by a random
 * factor 1 + U(0, 1). What the judge sees of a hit is what the host shows: the other tasks' time
 * on the CPU (the extra wall time), read to within a 10 ms tick. Hits too small to cross the
 * threshold stay in, as they would on a real host.
 */
const HIT_RATE_PER_SECOND = 0.3;
const TICK_MS = 10;

function contaminatedRun(rng: ReturnType<typeof createRng>, cleanMs: number) {
  const hit = rng.next() < HIT_RATE_PER_SECOND * (cleanMs / 1000);
  const wallMs = hit ? cleanMs * (1 + rng.next()) : cleanMs;
  const tickError = (rng.next() * 2 - 1) * TICK_MS;
  const observation: RunObservation = {
    wallMs,
    cpuMs: cleanMs,
    cpuBusyMs: Math.max(0, wallMs + tickError),
    stealMs: 0,
    cpuMigrations: 0,
    tickMs: TICK_MS,
  };
  return { wallMs, hit, observation };
}

/** The judge's loop on contaminated pairs: discard disturbed ones, re-time, stop as measure.ts does. */
function contaminatedCoverage(opts: { seed: number; discard: boolean; experiments: number }) {
  const rng = createRng(opts.seed);
  const trueRatio = 1.37;
  const policy = { minPairs: 5, maxPairs: 30, precision: 0.01 };
  const thresholds = resolveDisturbance(undefined, policy.maxPairs);
  let covered = 0;
  let tooBusy = 0;
  let discardedTotal = 0;
  let logError = 0;
  let hitsKept = 0;
  for (let e = 0; e < opts.experiments; e++) {
    // The invisible noise (jitter, tails, slow periods) for every pair the loop could time.
    const base = simulatePairs(rng, {
      pairs: policy.maxPairs + thresholds.maxDiscardedPairs,
      baselineMs: 1000,
      trueRatio,
    });
    const clean: { baselineMs: number; solutionMs: number }[] = [];
    let discarded = 0;
    for (const p of base) {
      const b = contaminatedRun(rng, p.baselineMs);
      const s = contaminatedRun(rng, p.solutionMs);
      const disturbed =
        disturbanceReasons(b.observation, thresholds).length > 0 ||
        disturbanceReasons(s.observation, thresholds).length > 0;
      if (opts.discard && disturbed) discarded++;
      else {
        clean.push({ baselineMs: b.wallMs, solutionMs: s.wallMs });
        if (b.hit || s.hit) hitsKept++;
      }
      const decision = opts.discard
        ? disturbanceDecision({ clean: clean.length, discarded }, policy, thresholds)
        : 'continue';
      if (decision === 'too-busy') break;
      if (clean.length >= policy.maxPairs || decision === 'budget') break;
    }
    discardedTotal += discarded;
    if (clean.length < policy.minPairs) {
      tooBusy++;
      continue;
    }
    const est = speedupEstimate(clean);
    if (est.ciLow <= trueRatio && trueRatio <= est.ciHigh) covered++;
    logError += Math.log(est.speedup / trueRatio);
  }
  const judged = opts.experiments - tooBusy;
  return {
    coverage: covered / judged,
    /** Mean relative error of the estimate (geometric): the bias the hits leave in. */
    bias: Math.exp(logError / judged) - 1,
    tooBusy,
    discardedPerJudging: discardedTotal / opts.experiments,
    hitsKeptPerJudging: hitsKept / opts.experiments,
  };
}

describe('coverage with contaminated runs (a share of runs slowed by other work, detected and discarded)', () => {
  it('without discarding, the length-biased hits bias the estimate toward the side hit more', () => {
    const r = contaminatedCoverage({ seed: 901, discard: false, experiments: 600 });
    // Measured with this seed: +0.94% bias, coverage 93.2% (the median of ratios resists, but the
    // baseline, hit more often, leans every estimate upward).
    expect(r.bias).toBeGreaterThan(0.005);
  });

  it('discarding disturbed pairs and re-timing brings the coverage on clean pairs back to about 95%', () => {
    const r = contaminatedCoverage({ seed: 902, discard: true, experiments: 600 });
    // Measured with this seed: coverage 96.5%, bias −0.07%, 23.6 pairs discarded per judging.
    expect(r.tooBusy).toBe(0);
    // About 40% of pairs have a hit; nearly all of them cross the threshold and are re-timed.
    expect(r.discardedPerJudging).toBeGreaterThan(8);
    expect(r.discardedPerJudging).toBeLessThan(30);
    expect(r.coverage).toBeGreaterThanOrEqual(0.92);
    expect(r.coverage).toBeLessThanOrEqual(0.99);
    expect(Math.abs(r.bias)).toBeLessThan(0.003);
  });
});

/*
 * The judge's default, Hodges–Lehmann with the signed-rank interval, under every noise shape the
 * estimator comparison uses (bench/estimators.ts): its coverage is exact when each pair's log-ratio
 * is symmetric about the truth, which each shape here keeps (a shape hits B and S alike). Figures
 * from `npm run bench -- estimators` are in docs/judging.md.
 */
const NOISE_SHAPES: { name: string; noise: Partial<NoiseModel> }[] = [
  { name: 'shared VM', noise: {} },
  { name: 'recorded-like spread (8% jitter)', noise: { jitterSigma: 0.08, tailProbability: 0.05 } },
  { name: 'bimodal layouts', noise: { layoutProbability: 0.3, layoutSlowdown: 0.12 } },
  { name: 'bursts', noise: { tailProbability: 0.3, tailMax: 1.0 } },
  { name: 'contaminated', noise: { tailProbability: 0.05, tailMin: 0.5, tailMax: 3.0 } },
];

describe('coverage of the judge’s default 95% interval (Hodges–Lehmann, signed rank)', () => {
  it.each(NOISE_SHAPES.map((s, i) => ({ ...s, seed: 2600 + i })))(
    '$name: n = 10 and n = 30',
    ({ noise, seed }) => {
      for (const pairs of [10, 30]) {
        const { coverage: cov } = coverage({
          seed: seed + pairs,
          pairs,
          trueRatio: 1.5,
          noise,
          method: 'signed-rank',
          experiments: 400,
        });
        // 400 judgings: one standard error is 1.1 points at 95%.
        expect(cov).toBeGreaterThanOrEqual(0.92);
        expect(cov).toBeLessThanOrEqual(0.99);
      }
    },
  );

  it('keeps its coverage through the stopping rule (min 5, max 30 pairs, ±1% and ±2%)', () => {
    expectCoverageThroughStopRule('signed-rank', 2650, 400);
  });

  it("keeps 95% through the manifest's run policy when computed at the judge's level", async () => {
    // The policy chosen from this host's figures (docs/judging.md, "The run policy"): a quiet host
    // (3% per run, nothing else) stops on precision; the shared VM's noise too, later. Stopping as
    // soon as the interval is narrow favours intervals narrow by chance: at 95% fixed-n the quiet
    // case covers about 93%, so the judge computes its interval at JUDGING_CONFIDENCE.
    const { minPairs, maxPairs, precision } = (await loadChallenge('wordcount')).manifest.runPolicy;
    const through = (confidence: number, noise: Partial<NoiseModel>, seed: number) =>
      sequentialCoverage({
        seed,
        policy: { minPairs, maxPairs, precision },
        method: 'signed-rank',
        experiments: 600,
        noise,
        confidence,
      });
    const quiet = { jitterSigma: 0.03, tailProbability: 0, slowEnter: 0 };
    expect(through(DEFAULT_CONFIDENCE, quiet, 2670)).toBeLessThan(0.945);
    for (const [i, noise] of [quiet, {}].entries()) {
      const cov = through(JUDGING_CONFIDENCE, noise, 2670 + i);
      expect(cov).toBeGreaterThanOrEqual(0.95);
      expect(cov).toBeLessThanOrEqual(0.99);
    }
  });

  it('is narrower than the median of ratios where the noise is spread rather than peaked', () => {
    // The recorded pairs' regime: ~8% per-run spread, few tails. The median of ratios needs ~1.5×
    // the pairs here; under peaked noise with many tails (bursts) it is the other way round.
    const noise = { jitterSigma: 0.08, tailProbability: 0.05 };
    const hl = coverage({
      seed: 2660,
      pairs: 30,
      trueRatio: 1.5,
      noise,
      method: 'signed-rank',
      experiments: 300,
    });
    const med = coverage({
      seed: 2660,
      pairs: 30,
      trueRatio: 1.5,
      noise,
      method: 'order-statistic',
      experiments: 300,
    });
    expect(hl.medianHalfWidth).toBeLessThan(0.9 * med.medianHalfWidth);
  });
});
