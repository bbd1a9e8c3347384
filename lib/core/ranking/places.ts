// Places from the pairwise comparisons, and the words the page shows about them: why a place is
// shared, and how places were decided.
import { EXACT_SIGNED_RANK_MAX_N } from '../stats/signed-rank';
import { DEFAULT_RESAMPLES } from '../stats/speedup';
import type { FinalRankingInput, PairwiseComparison, ScoredEntrant } from './final-ranking';

/** Comparisons by "a\u0000b" (a above b), for lookups by pair. */
function byPair(comparisons: readonly PairwiseComparison[]): Map<string, PairwiseComparison> {
  return new Map(comparisons.map((c) => [`${c.a}\u0000${c.b}`, c]));
}

/**
 * Places, `order` being best score first. A finalist's place is one more than the number of
 * finalists the judge finds better than it, never better than the place above it (places are
 * monotone), and always worse than the place of any finalist found better than it: the tests are
 * not transitive (A > C and C > D can both hold while A and D cannot be told apart), and without
 * that last term C and D could share a place although the judge tells them apart.
 */
export function assignPlaces(
  order: readonly ScoredEntrant[],
  comparisons: readonly PairwiseComparison[],
): number[] {
  const pairs = byPair(comparisons);
  const places: number[] = [];
  order.forEach((entrant, j) => {
    let place = j === 0 ? 1 : places[j - 1]!;
    let better = 0;
    for (let i = 0; i < j; i++) {
      if (!pairs.get(`${order[i]!.entrant}\u0000${entrant.entrant}`)?.distinguishable) continue;
      better++;
      place = Math.max(place, places[i]! + 1);
    }
    places.push(Math.max(place, 1 + better));
  });
  return places;
}

/** One sentence per finalist that shares its place (null for the others). */
export function tieReasons(
  order: readonly ScoredEntrant[],
  places: readonly number[],
  comparisons: readonly PairwiseComparison[],
  input: FinalRankingInput,
): (string | null)[] {
  const pairs = byPair(comparisons);
  const name = (id: string): string => input.labels?.[id] ?? id;
  const m = comparisons.length;
  return order.map((entrant, j) => {
    const others = order.filter((o, i) => i !== j && places[i] === places[j]);
    if (others.length === 0) return null;
    const figures = others.map((o) => {
      const c =
        pairs.get(`${entrant.entrant}\u0000${o.entrant}`) ??
        pairs.get(`${o.entrant}\u0000${entrant.entrant}`)!;
      const high = Math.max(entrant.score, o.score);
      const low = Math.min(entrant.score, o.score);
      return { rel: high / low - 1, p: c.pValue, rounds: c.rounds };
    });
    const rounds = range(
      figures.map((f) => f.rounds),
      (n) => String(n),
      '–',
    );
    const corrected = m > 1 ? ` once corrected for all ${m} comparisons` : '';
    const rate = percent(input.errorRate);
    if (others.length === 1) {
      const f = figures[0]!;
      return (
        `Shares place ${places[j]} with ${name(others[0]!.entrant)}: over ${rounds} rounds their scores ` +
        `differ by ${percent(f.rel)} (${pText(f.p)}), which the judge cannot tell apart at a ${rate} error rate${corrected}.`
      );
    }
    return (
      `Shares place ${places[j]} with ${nameList(others.map((o) => name(o.entrant)))}: over ${rounds} rounds its score ` +
      `differs from theirs by ${percentRange(figures.map((f) => f.rel))} (${pRange(figures.map((f) => f.p))}), ` +
      `which the judge cannot tell apart at a ${rate} error rate${corrected}.`
    );
  });
}

/**
 * A warning when no comparison can succeed: Holm holds the smallest p-value to errorRate / m, and
 * with n rounds the smallest p-value the exact test can give (one finalist ahead in every round) is
 * 2 / 2ⁿ. Null when separating is possible.
 */
export function reachWarning(
  comparisons: readonly PairwiseComparison[],
  errorRate: number,
): string | null {
  const m = comparisons.length;
  if (m === 0) return null;
  const n = Math.max(...comparisons.map((c) => c.rounds));
  const smallest = n > EXACT_SIGNED_RANK_MAX_N ? 0 : 2 ** (1 - n);
  if (smallest <= errorRate / m) return null;
  const needed = roundsToSeparateAny(m, errorRate);
  return (
    `With ${n} rounds and ${m} comparisons the judge cannot separate any two finalists: even one ahead in every ` +
    `round gets p = ${smallest.toPrecision(2)}, above the ${(errorRate / m).toPrecision(2)} that the first of Holm's ` +
    `thresholds asks; at least ${needed} rounds are needed. Every finalist shares one place.`
  );
}

/**
 * The fewest rounds with which `comparisons` pairwise comparisons can separate anyone at `errorRate`:
 * the n where 2 / 2ⁿ (one finalist ahead in every round) reaches Holm's first threshold errorRate / m.
 */
function roundsToSeparateAny(comparisons: number, errorRate: number): number {
  return comparisons === 0 ? 1 : Math.ceil(1 + Math.log2(comparisons / errorRate));
}

/** The same for `finalists` finalists, every one compared with every other. */
export function roundsToSeparateFinalists(finalists: number, errorRate: number): number {
  return roundsToSeparateAny((finalists * (finalists - 1)) / 2, errorRate);
}

export function describeMethod(
  input: FinalRankingInput,
  comparisons: readonly PairwiseComparison[],
): string {
  const formula =
    input.formula === 'SUM'
      ? "the sum of the targets' speedups"
      : "the geometric mean of the targets' speedups";
  const several = input.targets.length > 1;
  const rounds = range(
    input.targets.map((t) => t.rounds.length),
    (n) => String(n),
    '–',
  );
  const m = comparisons.length;
  return [
    `Each target's final session timed the baseline and every finalist once per round, in an order rotated from round to round, on one host; ${rounds} rounds per target.`,
    "A finalist's speedup on a target is the median over the rounds of the baseline's time divided by the finalist's, each round against its own baseline; its 95% interval is the distribution-free interval of a median (order statistics).",
    several
      ? `The score is ${formula}; its 95% interval is a bootstrap over each target's rounds (${DEFAULT_RESAMPLES} resamples, fixed seed).`
      : `The score is ${formula}: with one target, that target's speedup and its interval.`,
    `Places come from comparing every two finalists (${m} comparison${m === 1 ? '' : 's'}) round by round, since a round ran both on the same host at the same time: a Wilcoxon signed-rank test on the rounds' score ratios (exact up to ${EXACT_SIGNED_RANK_MAX_N} rounds) asks whether one is ahead more consistently than chance allows, and Holm's correction keeps the chance of separating any two finalists who are in truth equal at ${percent(input.errorRate)} or less for the whole ranking.`,
    'A finalist is placed one below every finalist the judge finds better than it; finalists it cannot tell apart share a place.',
  ].join(' ');
}

function percent(x: number): string {
  const pct = x * 100;
  if (pct > 0 && pct < 0.1) return 'less than 0.1%';
  return `${Number(pct.toFixed(pct < 10 ? 1 : 0))}%`;
}

/** "0.5% to 3.6%", or "up to 3.1%" when the smallest is too small to print. */
function percentRange(values: readonly number[]): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (percent(lo) === percent(hi)) return percent(lo);
  return lo * 100 < 0.1 ? `up to ${percent(hi)}` : `${percent(lo)} to ${percent(hi)}`;
}

function pText(p: number): string {
  return p < 0.001 ? 'p < 0.001' : `p = ${Number(p.toPrecision(2))}`;
}

function pRange(ps: readonly number[]): string {
  const lo = Math.min(...ps);
  const hi = Math.max(...ps);
  if (lo === hi) return pText(lo);
  const low = lo < 0.001 ? 'below 0.001' : String(Number(lo.toPrecision(2)));
  return `p from ${low} to ${Number(hi.toPrecision(2))}`;
}

function range(values: readonly number[], format: (x: number) => string, dash: string): string {
  const lo = format(Math.min(...values));
  const hi = format(Math.max(...values));
  return lo === hi ? lo : `${lo}${dash}${hi}`;
}

function nameList(names: readonly string[]): string {
  const shown = names.length > 4 ? [...names.slice(0, 3), `${names.length - 3} others`] : names;
  return shown.length === 1
    ? shown[0]!
    : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}
