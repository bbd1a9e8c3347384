// The pairwise comparisons behind the places. Two finalists are compared round by round: a round
// ran the baseline and both of them on the same host in the same few seconds, so whatever slowed
// that round (a busy neighbour, a hot CPU) slowed both alike, and comparing within the round takes
// it out. A Wilcoxon signed-rank test on the rounds asks whether one is ahead more consistently
// than chance allows; Holm's correction holds every comparison of the evaluation together to the
// stated error rate.
import { combineSpeedups } from '../stats/combine-speedups';
import { median } from '../stats/descriptive';
import { holm } from '../stats/holm';
import { signedRankTest } from '../stats/signed-rank';
import type { FinalRankingInput, PairwiseComparison } from './final-ranking';

/** A finalist's combined score in one round, from that round's figures on every target alone. */
export interface RoundScore {
  score: number;
  logScore: number;
}

/** Finalist id → round number → its round score; only rounds it has on every target count. */
export type RoundScores = Map<string, Map<number, RoundScore>>;

export function roundScores(input: FinalRankingInput): RoundScores {
  const result: RoundScores = new Map();
  const byTarget = input.targets.map((t) => new Map(t.rounds.map((r) => [r.round, r])));
  for (const entrant of input.entrants) {
    const scores = new Map<number, RoundScore>();
    for (const round of byTarget[0]!.keys()) {
      const ratios: number[] = [];
      for (const rounds of byTarget) {
        const r = rounds.get(round);
        if (r === undefined || !Object.hasOwn(r.entrantMs, entrant)) break;
        ratios.push(r.baselineMs / r.entrantMs[entrant]!);
      }
      if (ratios.length !== byTarget.length) continue;
      const score = combineSpeedups(input.formula, ratios);
      scores.set(round, { score, logScore: Math.log(score) });
    }
    result.set(entrant, scores);
  }
  return result;
}

/**
 * Every pair of finalists, `order` being best score first: a is always the one ranked higher. The
 * test runs on the rounds' log score ratios (a relative difference: the same 1% counts the same for
 * a fast finalist as for a slow one), zeros dropped; a finalist present in a round where the other
 * is not leaves that round out of their comparison.
 */
export function compareFinalists(
  order: readonly string[],
  scores: RoundScores,
  errorRate: number,
): PairwiseComparison[] {
  const raw: TestedPair[] = [];
  for (let i = 0; i < order.length; i++) {
    for (let j = i + 1; j < order.length; j++) {
      raw.push(comparePair(order[i]!, order[j]!, scores));
    }
  }
  const decisions = holm(
    raw.map((c) => c.pValue),
    errorRate,
  );
  return raw.map(({ favoursA, ...c }, k) => ({
    ...c,
    threshold: decisions[k]!.threshold,
    // A difference Holm accepts but that favours the finalist with the lower score (possible when the
    // medians and the round-by-round wins disagree) separates nobody: the order comes from the scores.
    distinguishable: decisions[k]!.rejected && favoursA,
  }));
}

type TestedPair = Omit<PairwiseComparison, 'threshold' | 'distinguishable'> & { favoursA: boolean };

function comparePair(a: string, b: string, scores: RoundScores): TestedPair {
  const sa = scores.get(a)!;
  const sb = scores.get(b)!;
  const logDifferences: number[] = [];
  const differences: number[] = [];
  for (const [round, x] of sa) {
    const y = sb.get(round);
    if (y === undefined) continue;
    logDifferences.push(x.logScore - y.logScore);
    differences.push(x.score - y.score);
  }
  const test = signedRankTest(logDifferences);
  return {
    a,
    b,
    scoreDifference: differences.length > 0 ? median(differences) : 0,
    pValue: test.pValue,
    rounds: differences.length,
    wPlus: test.wPlus,
    test: test.method,
    favoursA: test.wPlus > test.wMinus,
  };
}
