// Checks a final ranking's input before any figure is computed: every problem is named (which
// target, round, finalist), so a scorer that fed it bad rounds says what was wrong.
import {
  BASELINE_ENTRANT,
  MAX_FINAL_ROUNDS,
  MAX_FINALISTS,
  MIN_FINAL_ROUNDS,
} from '../../../contracts/final';
import type { FinalRankingInput } from './final-ranking';

/** More targets than any challenge has; a bound so a bad input cannot make the ranking crawl. */
const MAX_RANKING_TARGETS = 64;

/** Throws on input the ranking cannot use; returns warnings about input it can use, but weakly. */
export function validateRankingInput(input: FinalRankingInput): string[] {
  if (input === null || typeof input !== 'object')
    throw new Error('final ranking input must be an object');
  checkEntrants(input.entrants);
  checkFormulaAndErrorRate(input);
  if (!Array.isArray(input.targets) || input.targets.length === 0)
    throw new Error('final ranking needs at least one target, got none');
  if (input.targets.length > MAX_RANKING_TARGETS)
    throw new Error(
      `final ranking takes at most ${MAX_RANKING_TARGETS} targets, got ${input.targets.length}`,
    );
  const entrants = new Set(input.entrants);
  const seenTargets = new Set<string>();
  const warnings: string[] = [];
  for (const [t, target] of input.targets.entries()) {
    if (typeof target?.target !== 'string' || target.target.length === 0)
      throw new Error(`targets[${t}].target must be a non-empty string`);
    if (seenTargets.has(target.target)) throw new Error(`target ${target.target} is given twice`);
    seenTargets.add(target.target);
    checkRounds(target.target, target.rounds, entrants);
    warnings.push(...fewRoundWarnings(target.target, target.rounds, input.entrants));
  }
  if (input.labels !== undefined) {
    for (const [id, label] of Object.entries(input.labels))
      if (typeof label !== 'string' || label.length === 0 || label.length > 200)
        throw new Error(`labels[${id}] must be a name of 1 to 200 characters`);
  }
  if (input.excluded !== undefined) {
    if (!Array.isArray(input.excluded))
      throw new Error('excluded must be a list of { entrant, reason }');
    input.excluded.forEach((e, i) => {
      if (typeof e?.entrant !== 'string' || typeof e.reason !== 'string')
        throw new Error(`excluded[${i}] must be { entrant, reason } with two strings`);
      if (entrants.has(e.entrant))
        throw new Error(`finalist ${e.entrant} is both ranked and excluded`);
    });
  }
  return warnings;
}

function checkEntrants(list: unknown): void {
  if (!Array.isArray(list) || list.length === 0)
    throw new Error('final ranking needs at least one finalist, got none');
  if (list.length > MAX_FINALISTS)
    throw new Error(`final ranking takes at most ${MAX_FINALISTS} finalists, got ${list.length}`);
  const seen = new Set<string>();
  list.forEach((id: unknown, i) => {
    if (typeof id !== 'string' || id.length === 0 || id.length > 64)
      throw new Error(`entrants[${i}] must be an id of 1 to 64 characters, got ${String(id)}`);
    if (id === BASELINE_ENTRANT)
      throw new Error(
        `entrants[${i}] is "${BASELINE_ENTRANT}", the baseline's id: the baseline is not a finalist`,
      );
    if (seen.has(id)) throw new Error(`finalist ${id} is listed twice`);
    seen.add(id);
  });
}

function checkFormulaAndErrorRate(input: FinalRankingInput): void {
  if (input.formula !== 'SUM' && input.formula !== 'GEOMEAN')
    throw new Error(`formula must be SUM or GEOMEAN, got ${String(input.formula)}`);
  const rate = input.errorRate;
  if (!(typeof rate === 'number' && rate > 0 && rate <= 0.5))
    throw new Error(`errorRate must be a fraction in (0, 0.5] (e.g. 0.05 for 5%), got ${rate}`);
}

function checkRounds(target: string, rounds: unknown, entrants: ReadonlySet<string>): void {
  if (!Array.isArray(rounds) || rounds.length === 0)
    throw new Error(`target ${target}: no rounds to rank from`);
  if (rounds.length > MAX_FINAL_ROUNDS)
    throw new Error(`target ${target}: at most ${MAX_FINAL_ROUNDS} rounds, got ${rounds.length}`);
  const seen = new Set<number>();
  for (const r of rounds as FinalRankingInput['targets'][number]['rounds']) {
    const at = `target ${target}, round ${String(r?.round)}`;
    if (!Number.isInteger(r?.round) || r.round < 0)
      throw new Error(
        `target ${target}: a round number must be a whole number ≥ 0, got ${String(r?.round)}`,
      );
    if (seen.has(r.round)) throw new Error(`${at} is given twice`);
    seen.add(r.round);
    if (!isPositiveTime(r.baselineMs))
      throw new Error(
        `${at}: the baseline's time must be a positive finite number of ms, got ${r.baselineMs}`,
      );
    if (r.entrantMs === null || typeof r.entrantMs !== 'object')
      throw new Error(`${at}: entrantMs must map finalist ids to times`);
    for (const [id, ms] of Object.entries(r.entrantMs)) {
      if (!entrants.has(id)) throw new Error(`${at}: ${id} is not one of the finalists`);
      if (!isPositiveTime(ms))
        throw new Error(
          `${at}: finalist ${id}'s time must be a positive finite number of ms, got ${ms}`,
        );
    }
  }
  for (const id of entrants) {
    if (
      !(rounds as FinalRankingInput['targets'][number]['rounds']).some((r) =>
        Object.hasOwn(r.entrantMs, id),
      )
    )
      throw new Error(
        `target ${target}: finalist ${id} has no round, so it has no speedup there (leave it out of the ranking, with its reason)`,
      );
  }
}

function fewRoundWarnings(
  target: string,
  rounds: FinalRankingInput['targets'][number]['rounds'],
  entrants: readonly string[],
): string[] {
  const warnings: string[] = [];
  for (const id of entrants) {
    const n = rounds.filter((r) => Object.hasOwn(r.entrantMs, id)).length;
    if (n < MIN_FINAL_ROUNDS)
      warnings.push(
        `target ${target}: finalist ${id} has only ${n} round${n === 1 ? '' : 's'} (fewer than ${MIN_FINAL_ROUNDS}): its figures are weak and it can hardly be told apart from anyone`,
      );
  }
  return warnings;
}

function isPositiveTime(ms: unknown): boolean {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0;
}
