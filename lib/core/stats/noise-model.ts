// A simulated noisy shared VM, for checking the estimator's coverage and sizing run budgets.
import type { Rng } from './rng';
import type { TimedPair } from './speedup';

/**
 * Multiplicative noise on each run of the sequence B₁ S₁ B₂ S₂ …. Every component hits a baseline
 * run and a solution run with the same probability and the same distribution of relative size, so
 * log(b/s) − log(trueRatio) is symmetric about 0 and the median of the pairwise ratios — what the
 * estimator targets — equals the nominal ratio exactly (with drift = 0).
 */
export interface NoiseModel {
  /** σ of the lognormal jitter of every run (0.02 ≈ 2%). */
  jitterSigma: number;
  /** Probability that a run is hit by a burst of interference (the long right tail). */
  tailProbability: number;
  /** A tail hit slows the run by a factor 1 + U(tailMin, tailMax). */
  tailMin: number;
  tailMax: number;
  /**
   * Slow periods (a noisy neighbour) span consecutive runs: a two-state Markov chain over runs,
   * entered with probability slowEnter and left with slowExit after each run, started in its
   * stationary state. Each period draws one factor 1 + U(slowMin, slowMax) shared by all its
   * runs, so both runs of a pair inside it slow down together. Periods that begin between B and S
   * slow only S, those that end there slow only B; in the stationary chain both happen equally often.
   */
  slowEnter: number;
  slowExit: number;
  slowMin: number;
  slowMax: number;
  /** Relative slow-down per run applied to every run (thermal drift); biases the ratio when ≠ 0. */
  driftPerRun: number;
  /**
   * Bimodal memory layouts: each run (a new process, ASLR on) lands in a slow layout with this
   * probability and is then slower by the factor 1 + layoutSlowdown; 0 (the default) turns it off.
   */
  layoutProbability: number;
  layoutSlowdown: number;
}

const SHARED_VM_NOISE: NoiseModel = {
  jitterSigma: 0.02,
  tailProbability: 0.1,
  tailMin: 0.1,
  tailMax: 0.5,
  slowEnter: 0.03,
  slowExit: 0.15,
  slowMin: 0.1,
  slowMax: 0.4,
  driftPerRun: 0,
  layoutProbability: 0,
  layoutSlowdown: 0,
};

export interface SimulationInput {
  pairs: number;
  /** Noise-free baseline time. */
  baselineMs: number;
  /** Noise-free baselineMs / solutionMs. */
  trueRatio: number;
  noise?: Partial<NoiseModel>;
}

export function simulatePairs(rng: Rng, input: SimulationInput): TimedPair[] {
  const m: NoiseModel = { ...SHARED_VM_NOISE, ...input.noise };
  const solutionMs = input.baselineMs / input.trueRatio;
  const stationarySlow = m.slowEnter / (m.slowEnter + m.slowExit);
  let slow = rng.next() < stationarySlow;
  let slowFactor = 1 + m.slowMin + rng.next() * (m.slowMax - m.slowMin);
  let runIndex = 0;
  const run = (cleanMs: number): number => {
    let t = cleanMs * Math.exp(m.jitterSigma * rng.normal());
    if (rng.next() < m.tailProbability) t *= 1 + m.tailMin + rng.next() * (m.tailMax - m.tailMin);
    if (slow) t *= slowFactor;
    if (m.layoutProbability > 0 && rng.next() < m.layoutProbability) t *= 1 + m.layoutSlowdown;
    t *= 1 + m.driftPerRun * runIndex;
    runIndex += 1;
    if (slow) {
      if (rng.next() < m.slowExit) slow = false;
    } else if (rng.next() < m.slowEnter) {
      slow = true;
      slowFactor = 1 + m.slowMin + rng.next() * (m.slowMax - m.slowMin);
    }
    return t;
  };
  const out: TimedPair[] = [];
  for (let i = 0; i < input.pairs; i++) {
    const baseline = run(input.baselineMs);
    out.push({ baselineMs: baseline, solutionMs: run(solutionMs) });
  }
  return out;
}
