// The fair queue: a new submission's place among the judgings waiting for a runner. BullMQ takes
// the lowest priority first and, within one priority, the oldest; giving a submission 1 + the
// number of its author's submissions of the challenge still in progress or judged within the last
// half hour makes the queue round-robin by contestant: ten patches sent in a rush get priorities
// 1 … 10, and another contestant's first submission (priority 1) overtakes all but the first.
import type { Db } from '../client';

/** Judged within this long still counts as "recently done" for the author's share of the queue. */
const RECENT_SHARE_MS = 30 * 60_000;

export async function fairQueuePriority(
  db: Db,
  options: { userId: string; challengeId: string; now?: Date },
): Promise<number> {
  const since = new Date((options.now ?? new Date()).getTime() - RECENT_SHARE_MS);
  const share = await db.submission.count({
    where: {
      userId: options.userId,
      challengeId: options.challengeId,
      OR: [{ status: { in: ['QUEUED', 'JUDGING'] } }, { judgedAt: { gte: since } }],
    },
  });
  return 1 + share;
}

/** The priority a submission's judgings were stored with (0 for one stored before the fair queue). */
export async function storedQueuePriority(db: Db, submissionId: string): Promise<number> {
  const judging = await db.judging.findFirst({
    where: { submissionId },
    select: { queuePriority: true },
    orderBy: { queuePriority: 'desc' },
  });
  return judging?.queuePriority ?? 0;
}
