// The last session of a final evaluation is done: rank the finalists (lib/core/ranking, pure) from every
// session's rounds, store the ranking, each entrant's place, score or why it was left out, and
// mark the evaluation DONE (not yet public: the organizers publish it). Runs inside the
// transaction that recorded the last part, under the evaluation's row lock.
import { finalSessionResultSchema } from '../../../../contracts';
import {
  rankFinalists,
  rankingInputFromRounds,
  type FinalRanking,
} from '../../../core/ranking/final-ranking';
import type { Tx } from '../client';
import { storedRounds } from './get-final-session-jobs';
import { toJson } from '../json';

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
      entrants: { select: { id: true, user: { select: { name: true } } } },
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
  // Names for the tie reasons the page shows (the public leaderboard shows them too).
  const input = rankingInputFromRounds({
    entrants: e.entrants.map((en) => en.id).filter((id) => !why.has(id)),
    sessions: e.sessions.map((s) => ({ target: s.target.name, rounds: storedRounds(s.rounds) })),
    formula: scoringFormula,
    errorRate: e.errorRate,
    labels: Object.fromEntries(e.entrants.map((en) => [en.id, en.user.name])),
  });
  for (const x of input.excluded ?? []) why.set(x.entrant, [x.reason]);

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
            warnings: [],
            excluded: input.excluded ?? [],
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
