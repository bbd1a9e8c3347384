// The last session of a final evaluation is done: rank the finalists (lib/ranking, pure) from every
// session's rounds, store the ranking, each entrant's place, score or why it was left out, and
// mark the evaluation DONE (not yet public: the organizers publish it). Runs inside the
// transaction that recorded the last part, under the evaluation's row lock.
import { BASELINE_ENTRANT, type FinalRound, type FinalRun } from '../../contracts';
import {
  rankFinalists,
  type FinalRanking,
  type FinalRankingInput,
  type RankingRound,
} from '../ranking/final-ranking';
import type { Tx } from './client';
import { storedRounds } from './get-final-session-jobs';
import { toJson } from './json';
import { finalSessionResultSchema } from '../../contracts';

interface SessionRounds {
  target: string;
  rounds: readonly FinalRound[];
}

function counts(run: FinalRun): boolean {
  return run.correct && run.wallMs > 0 && (run.evidence?.disturbed.length ?? 0) === 0;
}

/** Each round once (the first finished), with the times that count: correct and undisturbed. */
function rankingRounds(rounds: readonly FinalRound[], entrants: readonly string[]): RankingRound[] {
  const first = new Map<number, FinalRound>();
  for (const r of [...rounds].sort((a, b) => a.finishedAt.localeCompare(b.finishedAt)))
    if (!first.has(r.round)) first.set(r.round, r);
  const out: RankingRound[] = [];
  for (const r of [...first.values()].sort((a, b) => a.round - b.round)) {
    const baseline = r.runs.find((run) => run.entrant === BASELINE_ENTRANT);
    if (!baseline || !counts(baseline)) continue;
    const entrantMs: Record<string, number> = {};
    for (const e of entrants) {
      const run = r.runs.find((x) => x.entrant === e);
      if (run && counts(run)) entrantMs[e] = run.wallMs;
    }
    out.push({ round: r.round, baselineMs: baseline.wallMs, entrantMs });
  }
  return out;
}

/**
 * The ranking's input from the sessions' rounds; a finalist without a counted round on some target
 * cannot have a score and is left out with why.
 */
export function rankingInputFromSessions(options: {
  entrants: readonly string[];
  sessions: readonly SessionRounds[];
  formula: 'SUM' | 'GEOMEAN';
  errorRate: number;
}): { input: FinalRankingInput; excluded: { entrant: string; reason: string }[] } {
  const targets = options.sessions.map((s) => ({
    target: s.target,
    rounds: rankingRounds(s.rounds, options.entrants),
  }));
  const excluded = options.entrants.flatMap((entrant) => {
    const empty = targets.filter((t) => !t.rounds.some((r) => entrant in r.entrantMs));
    return empty.length
      ? [
          {
            entrant,
            reason: `no round on ${empty.map((t) => t.target).join(', ')} in which both its run and the baseline's were correct and undisturbed`,
          },
        ]
      : [];
  });
  const out = new Set(excluded.map((e) => e.entrant));
  return {
    input: {
      entrants: options.entrants.filter((e) => !out.has(e)),
      targets: targets.map((t) => ({
        target: t.target,
        rounds: t.rounds
          .map((r) => ({
            ...r,
            entrantMs: Object.fromEntries(Object.entries(r.entrantMs).filter(([k]) => !out.has(k))),
          }))
          .filter((r) => Object.keys(r.entrantMs).length > 0),
      })),
      formula: options.formula,
      errorRate: options.errorRate,
    },
    excluded,
  };
}

/** Returns the evaluation's status after the check (RUNNING while a session is not done). */
export async function completeFinalEvaluation(tx: Tx, evaluationId: string): Promise<string> {
  const e = await tx.finalEvaluation.findUniqueOrThrow({
    where: { id: evaluationId },
    select: {
      status: true,
      errorRate: true,
      challengeVersionId: true,
      sessions: {
        select: { status: true, rounds: true, results: true, target: { select: { name: true } } },
      },
      entrants: { select: { id: true } },
    },
  });
  if (e.status !== 'RUNNING' || e.sessions.some((s) => s.status !== 'DONE')) return e.status;
  const { scoringFormula } = await tx.challengeVersion.findUniqueOrThrow({
    where: { id: e.challengeVersionId },
    select: { scoringFormula: true },
  });

  // A session's own exclusions first (did not build, wrong output): the entrant has no place.
  const why = new Map<string, string[]>();
  for (const s of e.sessions)
    for (const raw of Array.isArray(s.results) ? s.results : []) {
      const parsed = finalSessionResultSchema.safeParse(raw);
      if (!parsed.success) continue;
      for (const x of parsed.data.excluded)
        why.set(x.entrantId, [...(why.get(x.entrantId) ?? []), `${s.target.name}: ${x.reason}`]);
    }
  const { input, excluded } = rankingInputFromSessions({
    entrants: e.entrants.map((en) => en.id).filter((id) => !why.has(id)),
    sessions: e.sessions.map((s) => ({ target: s.target.name, rounds: storedRounds(s.rounds) })),
    formula: scoringFormula,
    errorRate: e.errorRate,
  });
  for (const x of excluded) why.set(x.entrant, [x.reason]);

  let ranking: FinalRanking;
  try {
    ranking =
      input.entrants.length > 0
        ? rankFinalists(input)
        : {
            entrants: [],
            comparisons: [],
            errorRate: e.errorRate,
            formula: scoringFormula,
            method: 'No finalist finished every target: nobody is ranked.',
          };
  } catch (error) {
    // Pure and deterministic: computing it again would fail again.
    await tx.finalEvaluation.update({
      where: { id: evaluationId },
      data: {
        status: 'FAILED',
        message: `The ranking could not be computed: ${(error as Error).message}`,
        finishedAt: new Date(),
      },
    });
    return 'FAILED';
  }
  for (const [entrant, reasons] of why)
    await tx.finalEntrant.update({
      where: { id: entrant },
      data: { excludedReason: reasons.join('; ').slice(0, 2000), place: null, score: null },
    });
  for (const r of ranking.entrants)
    await tx.finalEntrant.update({
      where: { id: r.entrant },
      data: { place: r.place, score: r.score, excludedReason: null },
    });
  await tx.finalEvaluation.update({
    where: { id: evaluationId },
    data: { status: 'DONE', ranking: toJson(ranking), finishedAt: new Date() },
  });
  return 'DONE';
}
