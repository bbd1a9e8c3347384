// The combined score of a submission from its targets' speedups: the rule lives in the core
// (lib/stats/combine-speedups.ts) so the final ranking applies the same one; re-exported here for
// the data layer's callers.
export { combineSpeedups, type ScoringFormula } from '../stats/combine-speedups';
