// Holm–Bonferroni: which of m hypotheses to reject so that the chance of rejecting any true one is
// at most alpha (the family-wise error rate), whatever their dependence. Uniformly more powerful
// than plain Bonferroni: the smallest p-value is held to alpha/m, the next to alpha/(m − 1), … and
// the procedure stops at the first that fails.

export interface HolmDecision {
  /** The threshold this p-value was held to: alpha / (m − rank), rank 0-based by ascending p. */
  threshold: number;
  rejected: boolean;
}

/** Decisions in the order of `pValues`. Equal p-values are taken in input order. */
export function holm(pValues: readonly number[], alpha: number): HolmDecision[] {
  if (!(typeof alpha === 'number' && alpha > 0 && alpha < 1)) {
    throw new Error(`alpha must be strictly between 0 and 1, got ${alpha}`);
  }
  pValues.forEach((p, i) => {
    if (!(typeof p === 'number' && p >= 0 && p <= 1))
      throw new Error(`pValues[${i}] must be a probability in [0, 1], got ${p}`);
  });
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((a, b) => pValues[a]! - pValues[b]! || a - b);
  const decisions = new Array<HolmDecision>(m);
  let stillRejecting = true;
  order.forEach((index, rank) => {
    const threshold = alpha / (m - rank);
    stillRejecting = stillRejecting && pValues[index]! <= threshold;
    decisions[index] = { threshold, rejected: stillRejecting };
  });
  return decisions;
}
