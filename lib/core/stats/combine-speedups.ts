// The combined score of a submission from its targets' speedups, by the manifest's scoring formula.
// In the core because the provisional score (lib/server/db, settled per submission) and the final ranking
// (lib/core/ranking, combined per round and per bootstrap resample) must apply the very same rule.

/** The manifest's scoring formula, spelled as the database's enum spells it. */
export type ScoringFormula = 'SUM' | 'GEOMEAN';

export function combineSpeedups(formula: ScoringFormula, speedups: readonly number[]): number {
  if (speedups.length === 0) throw new Error('no speedups to combine');
  if (speedups.some((s) => !(s > 0) || !Number.isFinite(s)))
    throw new Error(`speedups must be positive and finite: ${speedups.join(', ')}`);
  if (formula === 'SUM') return speedups.reduce((a, b) => a + b, 0);
  if (formula !== 'GEOMEAN') throw new Error(`unknown scoring formula ${String(formula)}`);
  // Through logarithms: a product of many large speedups could overflow before the root.
  return Math.exp(speedups.reduce((a, s) => a + Math.log(s), 0) / speedups.length);
}
