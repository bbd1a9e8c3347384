// Enqueuing a stored submission again (a rejudge, the reconciler): its unsettled judgings read back
// from the database, then handed to the producer, which only queues what it is given.
import type { Db } from '../db/client';
import { storedQueuePriority } from '../db/judgings/fair-queue-priority';
import { listPendingJudgingJobs } from '../db/judgings/list-pending-judging-jobs';
import {
  enqueueJudgings,
  type EnqueuedSubmission,
  type EnqueueOptions,
  type QueueSet,
} from '../queue/producer';

/**
 * Enqueues a submission's judgings not yet settled (read back from the database), each as its own
 * flow. The same (judging, round) always gives the same job ids, so a repeated enqueue (a retry,
 * the reconciler, a race with it) adds nothing; a new round (rejudge) gets new jobs. Throws when
 * Redis does not answer in time; the submission is already in the database, so the reconciler
 * queues it later.
 */
export async function enqueueSubmission(
  db: Db,
  queues: QueueSet,
  submissionId: string,
  options: EnqueueOptions & {
    /** Only these judgings of the submission (the reconciler's: those whose jobs Redis lost). */
    judgingIds?: readonly string[];
  } = {},
): Promise<EnqueuedSubmission> {
  const { judgingIds, ...enqueue } = options;
  // Queued again where the fair queue first put it, unless the caller says (a rejudge).
  const priority = enqueue.priority ?? (await storedQueuePriority(db, submissionId));
  return enqueueJudgings(
    queues,
    submissionId,
    await listPendingJudgingJobs(db, submissionId, judgingIds),
    { ...enqueue, priority },
  );
}
