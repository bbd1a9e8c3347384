// The scorer's write for one final session part (contracts/final.ts finalSessionResultSchema, parsed
// by the consumer): the part's result and rounds in its session, the session DONE once every part
// answered, and the evaluation ranked and DONE once every session is (complete-final-evaluation.ts),
// in one transaction under the evaluation's row lock. A second delivery, or a result for an
// evaluation that is no longer running (cancelled, failed), changes nothing.
import type { FinalRound, FinalSessionResult } from '../../../../contracts';
import type { Db, Tx } from '../client';
import { completeFinalEvaluation } from './complete-final-evaluation';
import { InvalidResultError, NotFoundError } from '../errors';
import { recordedParts, storedRounds } from './get-final-session-jobs';
import { toJson } from '../json';

export interface RecordFinalSessionResultOptions {
  evaluationId: string;
  sessionId: string;
  part: number;
  result: FinalSessionResult;
}

export interface RecordFinalSessionResultOutcome {
  /** 'ignored': the evaluation is not running any more (cancelled or failed). */
  outcome: 'recorded' | 'duplicate' | 'ignored';
  sessionStatus: string;
  evaluationStatus: string;
}

/** Rounds by number: the later list's wins (a part's result is the authority on its own rounds). */
function mergeRounds(recorded: FinalRound[], incoming: FinalRound[]): FinalRound[] {
  const byRound = new Map<number, FinalRound>();
  for (const r of [...recorded, ...incoming]) byRound.set(r.round, r);
  return [...byRound.values()].sort((a, b) => a.round - b.round);
}

/** Locks the evaluation row: parts of several sessions finish concurrently, one must rank. */
export async function lockFinalEvaluation(tx: Tx, evaluationId: string): Promise<void> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "FinalEvaluation" WHERE id = ${evaluationId} FOR UPDATE`;
  if (locked.length === 0) throw new NotFoundError(`No final evaluation ${evaluationId}`);
}

export async function recordFinalSessionResult(
  db: Db,
  options: RecordFinalSessionResultOptions,
): Promise<RecordFinalSessionResultOutcome> {
  const { evaluationId, sessionId, part, result } = options;
  return db.$transaction(
    async (tx) => {
      await lockFinalEvaluation(tx, evaluationId);
      const evaluation = await tx.finalEvaluation.findUniqueOrThrow({
        where: { id: evaluationId },
        select: { status: true },
      });
      // The claim tracker appends other parts' rounds to the same row meanwhile: read it locked.
      await tx.$queryRaw`SELECT id FROM "FinalSession" WHERE id = ${sessionId} FOR UPDATE`;
      const session = await tx.finalSession.findUnique({
        where: { id: sessionId },
        select: { evaluationId: true, status: true, parts: true, rounds: true, results: true },
      });
      if (!session || session.evaluationId !== evaluationId)
        throw new NotFoundError(`No session ${sessionId} in final evaluation ${evaluationId}`);
      const state = { sessionStatus: session.status, evaluationStatus: evaluation.status };
      if (evaluation.status !== 'RUNNING') return { outcome: 'ignored', ...state };
      if (result.sessionId !== sessionId || result.part !== part || part >= session.parts)
        throw new InvalidResultError(
          `A result for session ${result.sessionId} part ${result.part} delivered to session ${sessionId} part ${part} (of ${session.parts})`,
        );
      if (recordedParts(session.results).has(part)) return { outcome: 'duplicate', ...state };

      const results = [...(Array.isArray(session.results) ? session.results : []), toJson(result)];
      const rounds = mergeRounds(storedRounds(session.rounds), result.rounds);
      const done = recordedParts(results).size >= session.parts;
      await tx.finalSession.update({
        where: { id: sessionId },
        data: {
          results: toJson(results),
          rounds: toJson(rounds),
          roundsDone: rounds.length,
          status: done ? 'DONE' : 'JUDGING',
          finishedAt: done ? new Date() : undefined,
        },
      });
      const status = await completeFinalEvaluation(tx, evaluationId);
      return {
        outcome: 'recorded',
        sessionStatus: done ? 'DONE' : 'JUDGING',
        evaluationStatus: status,
      };
    },
    { timeout: 60_000 },
  );
}
