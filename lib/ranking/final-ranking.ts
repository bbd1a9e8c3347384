// The final ranking (README, Organizers: "Provisional and final rankings"): from the rounds of a
// final evaluation's sessions, each finalist's speedup per target with its interval, the combined
// score by the manifest's formula, and places decided by pairwise comparisons of the finalists'
// round-by-round results at a stated family-wise error rate (Holm-corrected): finalists the judge
// cannot tell apart share a place, and the ranking says why.
//
// Pure: no I/O. The scorer computes it when the last session is done; the bench and the tests call
// it on simulated or locally timed rounds.

/** One round of one target's session: the baseline's and each finalist's wall time in it. */
export interface RankingRound {
  round: number;
  baselineMs: number;
  /** Finalist id → wall time in this round; a finalist missing from a round has no figure there. */
  entrantMs: Record<string, number>;
}

export interface RankingTarget {
  target: string;
  rounds: RankingRound[];
}

export interface FinalRankingInput {
  /** Every finalist still in the evaluation (excluded ones are left out by the caller). */
  entrants: string[];
  targets: RankingTarget[];
  formula: 'SUM' | 'GEOMEAN';
  /** Family-wise error rate of all pairwise comparisons together (e.g. 0.05). */
  errorRate: number;
}

export interface TargetFigure {
  target: string;
  /** Median over rounds of baselineMs / entrantMs (each round's own baseline). */
  speedup: number;
  ciLow: number;
  ciHigh: number;
  rounds: number;
}

export interface PairwiseComparison {
  /** a ranks above b by score. */
  a: string;
  b: string;
  /** Median over rounds of the per-round score difference a − b. */
  scoreDifference: number;
  /** Two-sided p-value of the paired test on the rounds. */
  pValue: number;
  /** Holm's threshold this comparison was held to. */
  threshold: number;
  /** The judge can tell them apart at the stated error rate. */
  distinguishable: boolean;
}

export interface RankedEntrant {
  entrant: string;
  perTarget: TargetFigure[];
  /** Combined score from the per-target speedups by the formula, with its interval. */
  score: number;
  scoreCiLow: number;
  scoreCiHigh: number;
  /** 1-based; equal for finalists that share a place. */
  place: number;
  /** The others on the same place. */
  tiedWith: string[];
  /** One sentence for the page: why this place is shared (or null when it is not). */
  tieReason: string | null;
}

export interface FinalRanking {
  /** Best first. */
  entrants: RankedEntrant[];
  comparisons: PairwiseComparison[];
  errorRate: number;
  formula: 'SUM' | 'GEOMEAN';
  /** How places were decided, in words, for the page and the exports. */
  method: string;
}

export function rankFinalists(input: FinalRankingInput): FinalRanking {
  void input;
  throw new Error('rankFinalists: not implemented yet');
}
