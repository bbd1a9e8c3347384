// Marks a judging as taken by a runner (called when its job becomes active), counting the attempt.
import type { Db } from './client';

export interface ClaimJudgingOptions {
  judgingId: string;
  round: number;
  /** The runner's id (as in its heartbeat). */
  runner: string;
}

export type ClaimJudgingResult =
  | { claimed: true; attempts: number }
  /** Unknown judging, a later round exists (rejudged), or the result is already recorded. */
  | { claimed: false; reason: 'not-found' | 'stale-round' | 'done' };

export async function claimJudging(
  db: Db,
  options: ClaimJudgingOptions,
): Promise<ClaimJudgingResult> {
  return db.$transaction(async (tx) => {
    const updated = await tx.judging.updateMany({
      where: { id: options.judgingId, round: options.round, status: { not: 'DONE' } },
      data: {
        status: 'JUDGING',
        attempts: { increment: 1 },
        runner: options.runner,
        startedAt: new Date(),
      },
    });
    const judging = await tx.judging.findUnique({
      where: { id: options.judgingId },
      select: { round: true, status: true, attempts: true, submissionId: true },
    });
    if (!judging) return { claimed: false, reason: 'not-found' };
    if (updated.count === 0)
      return { claimed: false, reason: judging.round !== options.round ? 'stale-round' : 'done' };
    await tx.submission.updateMany({
      where: { id: judging.submissionId, status: 'QUEUED' },
      data: { status: 'JUDGING' },
    });
    return { claimed: true, attempts: judging.attempts };
  });
}
