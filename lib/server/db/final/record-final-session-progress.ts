// Where a final session stands while runners time it (runners never touch the database: the
// scorer's claim tracker reports their job events): WAITING once a runner took a part, JUDGING from
// its first progress past the wait, and each round the runner reports finished appended to the
// session's rounds — the checkpoint a re-queued part continues from. Idempotent by round number.
import type { FinalRound } from '../../../../contracts';
import type { Db } from '../client';
import { storedRounds } from './get-final-session-jobs';
import { toJson } from '../json';

export interface RecordFinalSessionProgressOptions {
  sessionId: string;
  status: 'WAITING' | 'JUDGING';
  /** The round the runner just finished (contracts/final.ts finalSessionProgressSchema.round). */
  round?: FinalRound;
}

export type RecordFinalSessionProgressResult =
  | { recorded: true; roundsDone: number; status: string }
  /** Unknown session, or its evaluation is no longer running, or the session is over. */
  | { recorded: false; reason: 'not-found' | 'not-running' };

export async function recordFinalSessionProgress(
  db: Db,
  options: RecordFinalSessionProgressOptions,
): Promise<RecordFinalSessionProgressResult> {
  return db.$transaction(async (tx) => {
    // Parts of one session report concurrently: one read-modify-write of the rounds at a time.
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "FinalSession" WHERE id = ${options.sessionId} FOR UPDATE`;
    if (locked.length === 0) return { recorded: false, reason: 'not-found' };
    const s = await tx.finalSession.findUniqueOrThrow({
      where: { id: options.sessionId },
      select: {
        status: true,
        rounds: true,
        startedAt: true,
        evaluation: { select: { status: true } },
      },
    });
    if (s.evaluation.status !== 'RUNNING' || s.status === 'DONE' || s.status === 'CANCELLED')
      return { recorded: false, reason: 'not-running' };
    // One part waiting for its host must not hide another part being timed.
    const status = options.status === 'JUDGING' || s.status === 'JUDGING' ? 'JUDGING' : 'WAITING';
    let rounds = storedRounds(s.rounds);
    const round = options.round;
    const fresh = round !== undefined && !rounds.some((r) => r.round === round.round);
    if (fresh) rounds = [...rounds, round].sort((a, b) => a.round - b.round);
    await tx.finalSession.update({
      where: { id: options.sessionId },
      data: {
        status,
        startedAt: status === 'JUDGING' && !s.startedAt ? new Date() : undefined,
        ...(fresh ? { rounds: toJson(rounds), roundsDone: rounds.length } : {}),
      },
    });
    return { recorded: true, roundsDone: rounds.length, status };
  });
}
