// The combined score of a submission from its targets' speedups, by the manifest's scoring formula.
import type { ScoringFormula } from './generated/prisma/enums';

export function combineSpeedups(formula: ScoringFormula, speedups: readonly number[]): number {
  if (speedups.length === 0) throw new Error('no speedups to combine');
  if (speedups.some((s) => !(s > 0) || !Number.isFinite(s)))
    throw new Error(`speedups must be positive and finite: ${speedups.join(', ')}`);
  if (formula === 'SUM') return speedups.reduce((a, b) => a + b, 0);
  // Through logarithms: a product of many large speedups could overflow before the root.
  return Math.exp(speedups.reduce((a, s) => a + Math.log(s), 0) / speedups.length);
}
