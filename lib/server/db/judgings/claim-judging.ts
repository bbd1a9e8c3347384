// Marks a judging as taken by a runner: WAITING when its job becomes active (the runner queues for
// the host lock, nothing runs yet; the attempt is counted), JUDGING once the runner reports a stage
// past the wait.
import type { Db } from '../client';

export interface ClaimJudgingOptions {
  judgingId: string;
  round: number;
  /** The runner's id (as in its heartbeat). */
  runner: string;
  /** 'WAITING': the job was taken (an attempt); 'JUDGING' (default): the judge is running it. */
  status?: 'WAITING' | 'JUDGING';
}

export type ClaimJudgingResult =
  | { claimed: true; attempts: number }
  /** Unknown judging, a later round exists (rejudged), already settled, or already further on. */
  | { claimed: false; reason: 'not-found' | 'stale-round' | 'done' };

export async function claimJudging(
  db: Db,
  options: ClaimJudgingOptions,
): Promise<ClaimJudgingResult> {
  const status = options.status ?? 'JUDGING';
  return db.$transaction(async (tx) => {
    const updated = await tx.judging.updateMany({
      where: {
        id: options.judgingId,
        round: options.round,
        // A new attempt may follow any unsettled state; JUDGING only follows the wait (or a missed one).
        status: {
          in: status === 'WAITING' ? ['QUEUED', 'WAITING', 'JUDGING'] : ['QUEUED', 'WAITING'],
        },
      },
      data: {
        status,
        runner: options.runner,
        ...(status === 'WAITING'
          ? { attempts: { increment: 1 }, startedAt: null }
          : { startedAt: new Date() }),
      },
    });
    const judging = await tx.judging.findUnique({
      where: { id: options.judgingId },
      select: { round: true, status: true, attempts: true, submissionId: true },
    });
    if (!judging) return { claimed: false, reason: 'not-found' };
    if (updated.count === 0)
      return { claimed: false, reason: judging.round !== options.round ? 'stale-round' : 'done' };
    if (status === 'JUDGING')
      await tx.submission.updateMany({
        where: { id: judging.submissionId, status: 'QUEUED' },
        data: { status: 'JUDGING' },
      });
    return { claimed: true, attempts: judging.attempts };
  });
}
