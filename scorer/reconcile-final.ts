// The reconciler's part for the final evaluation and "rejudge N times": a running evaluation's
// session part, or a repeat judging, still waiting for a result whose jobs Redis no longer has is
// queued again — a final part with the rounds the database recorded as its checkpoint (`done`),
// so it continues from them instead of timing them again.
import {
  SCORE_QUEUE,
  finalSessionJobId,
  finalSessionScoreJobId,
  judgeQueueName,
  judgingJobSchema,
  repeatJobId,
  repeatScoreJobId,
  targetIdSchema,
} from '../contracts';
import type { Db } from '../lib/server/db/client';
import { getFinalSessionJobs } from '../lib/server/db/final/get-final-session-jobs';
import { getRepeatJudgingJob } from '../lib/server/db/judgings/get-repeat-judging-job';
import {
  listUnfinishedFinalParts,
  listUnfinishedRepeats,
} from '../lib/server/db/final/list-unfinished-final-work';
import {
  enqueueFinalSessionParts,
  enqueueRepeatJudgings,
  QueueTimeoutError,
  withTimeout,
  type QueueSet,
} from '../lib/server/queue/producer';
import { REJUDGE_PRIORITY } from '../lib/server/submit/rejudge';
import { retryFailedScoreJob, stateOf } from './job-state';

export interface FinalReconcileReport {
  /** Final session parts queued again (their job ids). */
  finalRequeued: string[];
  /** Repeat judgings queued again (their job ids). */
  repeatsRequeued: string[];
  /** Score parents of either that had failed for good and were retried. */
  finalRetried: string[];
  errors: { subject: string; message: string }[];
}

/**
 * What to do with a flow whose database row still waits: 'requeue' when both jobs are gone (or the
 * child is gone under a parent that can only wait for it), 'retry' a failed parent, else nothing.
 */
async function repair(
  queues: QueueSet,
  child: { queue: string; id: string },
  parentId: string,
): Promise<'requeue' | 'retry' | 'in-flight'> {
  const [childState, parentState] = await Promise.all([
    stateOf(queues, child.queue, child.id),
    stateOf(queues, SCORE_QUEUE, parentId),
  ]);
  if (parentState === 'failed') {
    await retryFailedScoreJob(queues, parentId);
    return 'retry';
  }
  if (childState !== 'unknown') return 'in-flight';
  if (parentState === 'unknown') return 'requeue';
  if (parentState === 'waiting-children') {
    // Half of the flow lost: the parent would wait for ever. Replace the whole flow.
    await withTimeout(
      queues.scoreQueue().remove(parentId, { removeChildren: true }),
      queues.enqueueTimeoutMs,
      `Removing job ${parentId}`,
    );
    return 'requeue';
  }
  return 'in-flight';
}

export async function reconcileFinalWork(
  db: Db,
  queues: QueueSet,
  options: { olderThan: Date; log: (line: string) => void },
): Promise<FinalReconcileReport> {
  const report: FinalReconcileReport = {
    finalRequeued: [],
    repeatsRequeued: [],
    finalRetried: [],
    errors: [],
  };
  const { log } = options;
  for (const p of await listUnfinishedFinalParts(db, { olderThan: options.olderThan })) {
    const target = targetIdSchema.safeParse(p.target);
    if (!target.success) continue;
    const childId = finalSessionJobId(p.sessionId, p.part);
    try {
      const action = await repair(
        queues,
        { queue: judgeQueueName(target.data), id: childId },
        finalSessionScoreJobId(p.sessionId, p.part),
      );
      if (action === 'retry') report.finalRetried.push(finalSessionScoreJobId(p.sessionId, p.part));
      if (action !== 'requeue') continue;
      const jobs = (await getFinalSessionJobs(db, p.sessionId)).filter((j) => j.part === p.part);
      await enqueueFinalSessionParts(queues, jobs);
      report.finalRequeued.push(childId);
      log(
        `final session ${p.sessionId} part ${p.part} (${p.target}): job missing from Redis, queued again with ${jobs[0]?.done.length ?? 0} rounds done`,
      );
    } catch (error) {
      if (error instanceof QueueTimeoutError) throw error;
      report.errors.push({ subject: childId, message: (error as Error).message });
    }
  }
  for (const r of await listUnfinishedRepeats(db, { olderThan: options.olderThan })) {
    const target = targetIdSchema.safeParse(r.target);
    if (!target.success) continue;
    const childId = repeatJobId(r.repeatId);
    try {
      const action = await repair(
        queues,
        { queue: judgeQueueName(target.data), id: childId },
        repeatScoreJobId(r.repeatId),
      );
      if (action === 'retry') report.finalRetried.push(repeatScoreJobId(r.repeatId));
      if (action !== 'requeue') continue;
      const job = await getRepeatJudgingJob(db, r.repeatId);
      if (!job) continue;
      await enqueueRepeatJudgings(queues, [judgingJobSchema.parse(job)], {
        priority: REJUDGE_PRIORITY,
      });
      report.repeatsRequeued.push(childId);
      log(`repeat judging ${r.repeatId}: job missing from Redis, queued again`);
    } catch (error) {
      if (error instanceof QueueTimeoutError) throw error;
      report.errors.push({ subject: childId, message: (error as Error).message });
    }
  }
  return report;
}
