// The reconciler: PostgreSQL says what must be judged, Redis what is in flight. Judgings still
// unsettled (queued, waiting for the host, judging) whose jobs Redis no longer has (flushed,
// restarted without persistence, never reached because it was down at submit time) are queued
// again; the same ids make a duplicate impossible. A judging whose result is recorded (DONE) or that
// was cancelled is never listed, so it is never judged again.
import {
  judgeQueueName,
  judgingJobId,
  judgingScoreJobId,
  scoreJobId,
  SCORE_QUEUE,
  targetIdSchema,
} from '../contracts';
import type { Db } from '../lib/server/db/client';
import {
  listUnqueuedJudgings,
  type UnqueuedJudging,
} from '../lib/server/db/judgings/list-unqueued-judgings';
import { reconcileFinalWork } from './reconcile-final';
import { retryFailedScoreJob, stateOf, type JobState } from './job-state';
import { QueueTimeoutError, type QueueSet } from '../lib/server/queue/producer';
import { enqueueSubmission } from '../lib/server/submit/enqueue-submission';

export interface ReconcileOptions {
  /** Judgings whose state changed more recently are left alone (their enqueue may be under way). */
  olderThanMs?: number;
  /** Judgings checked per pass; the oldest first. */
  limit?: number;
  log?: (line: string) => void;
}

export interface ReconcileReport {
  /** Judgings examined. */
  checked: number;
  /** Submissions whose flow was added again. */
  requeued: string[];
  /** Submissions whose score job had failed for good (e.g. a long database outage) and was retried. */
  retried: string[];
  /** Submissions the queue cannot finish by itself: an organizer should rejudge them. */
  stuck: string[];
  /** Submissions that could not be repaired this pass (e.g. a judging the contract cannot carry). */
  errors: { submissionId: string; message: string }[];
  /** Final session parts queued again, from their recorded rounds (job ids). */
  finalRequeued: string[];
  /** "Rejudge N times" judgings queued again (job ids). */
  repeatsRequeued: string[];
}

export const DEFAULT_RECONCILE_OLDER_THAN_MS = 60_000;

/** The score parent of a judging: its own, or (queued before per-target recording) its submission's. */
async function parentOf(
  queues: QueueSet,
  judging: UnqueuedJudging,
  childKnown: boolean,
): Promise<{ id: string; state: JobState }> {
  const own = judgingScoreJobId(judging.judgingId, judging.round);
  const state = await stateOf(queues, SCORE_QUEUE, own);
  if (state !== 'unknown' || !childKnown) return { id: own, state };
  const legacy = scoreJobId(judging.submissionId, judging.round);
  return { id: legacy, state: await stateOf(queues, SCORE_QUEUE, legacy) };
}

async function reconcileSubmission(
  db: Db,
  queues: QueueSet,
  submissionId: string,
  judgings: UnqueuedJudging[],
  report: ReconcileReport,
  log: (line: string) => void,
): Promise<void> {
  const missing: string[] = [];
  let stuck: { judgingId: string; why: string }[] = [];
  let retried = false;
  for (const judging of judgings) {
    const target = targetIdSchema.safeParse(judging.target);
    // A target this version of the platform does not know has no queue to look in.
    const child = target.success
      ? await stateOf(
          queues,
          judgeQueueName(target.data),
          judgingJobId(judging.judgingId, judging.round),
        )
      : ('unknown' as const);
    const parent = await parentOf(queues, judging, child !== 'unknown');
    if (parent.state === 'failed') {
      // Its child's answer is still held by the parent: running it again records it.
      await retryFailedScoreJob(queues, parent.id);
      retried = true;
      log(`submission ${submissionId}: score job ${parent.id} had failed, retried`);
    } else if (parent.state === 'unknown' && child === 'unknown') {
      missing.push(judging.judgingId);
    } else if (child === 'active') {
      // A runner holds it (after a Redis loss, perhaps a job it took before and holds on to):
      // however its judging ends, the next pass sees what is left and repairs it then.
    } else if (parent.state === 'completed' || parent.state === 'unknown' || child === 'unknown') {
      // Scored without it, or half of its flow lost: nothing in the queue will change that.
      stuck.push({
        judgingId: judging.judgingId,
        why: `${judging.judgingId} (${judging.status}, score job ${parent.state}, judging job ${child})`,
      });
    }
  }
  if (retried) report.retried.push(submissionId);
  if (missing.length) {
    await enqueueSubmission(db, queues, submissionId, { judgingIds: missing });
    report.requeued.push(submissionId);
    log(
      `submission ${submissionId}: jobs of ${missing.join(', ')} missing from Redis, queued again`,
    );
  }
  // The judgings were listed before Redis was asked: one the scorer recorded in between (its score
  // job completed just after the listing) is done, not stuck. Read again, after Redis answered.
  if (stuck.length) {
    const unsettled = await listUnqueuedJudgings(db, {
      judgingIds: stuck.map((s) => s.judgingId),
    });
    stuck = stuck.filter((s) => unsettled.some((u) => u.judgingId === s.judgingId));
  }
  if (stuck.length) {
    report.stuck.push(submissionId);
    log(
      `submission ${submissionId}: judgings ${stuck.map((s) => s.why).join('; ')} cannot finish; rejudge it`,
    );
  }
}

/** One pass: compares what the database waits for with what Redis holds, and repairs the difference. */
export async function reconcile(
  db: Db,
  queues: QueueSet,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const log = options.log ?? (() => {});
  const judgings = await listUnqueuedJudgings(db, {
    olderThan: new Date(Date.now() - (options.olderThanMs ?? DEFAULT_RECONCILE_OLDER_THAN_MS)),
    limit: options.limit ?? 5_000,
  });
  const bySubmission = new Map<string, UnqueuedJudging[]>();
  for (const j of judgings) {
    const list = bySubmission.get(j.submissionId) ?? [];
    list.push(j);
    bySubmission.set(j.submissionId, list);
  }
  const report: ReconcileReport = {
    checked: judgings.length,
    requeued: [],
    retried: [],
    stuck: [],
    errors: [],
    finalRequeued: [],
    repeatsRequeued: [],
  };
  for (const [submissionId, list] of bySubmission) {
    try {
      await reconcileSubmission(db, queues, submissionId, list, report, log);
    } catch (error) {
      // Redis not answering fails the whole pass; anything else is this submission's problem.
      if (error instanceof QueueTimeoutError) throw error;
      report.errors.push({ submissionId, message: (error as Error).message });
      log(`submission ${submissionId}: ${(error as Error).message}`);
    }
  }
  const final = await reconcileFinalWork(db, queues, {
    olderThan: new Date(Date.now() - (options.olderThanMs ?? DEFAULT_RECONCILE_OLDER_THAN_MS)),
    log,
  });
  report.finalRequeued = final.finalRequeued;
  report.repeatsRequeued = final.repeatsRequeued;
  report.retried.push(...final.finalRetried);
  for (const e of final.errors) {
    report.errors.push({ submissionId: e.subject, message: e.message });
    log(`${e.subject}: ${e.message}`);
  }
  return report;
}

export interface ReconcilerHandle {
  /** Waits for a pass under way, then stops. */
  stop(): Promise<void>;
}

/** Runs a pass now and then every `everyMs`; a failed pass (Redis or PostgreSQL down) is logged and retried next time. */
export function startReconciler(
  db: Db,
  queues: QueueSet,
  options: ReconcileOptions & { everyMs: number; onReport?: (report: ReconcileReport) => void },
): ReconcilerHandle {
  const log = options.log ?? (() => {});
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    try {
      const report = await reconcile(db, queues, options);
      options.onReport?.(report);
    } catch (error) {
      log(`reconcile pass failed (will try again): ${(error as Error).message}`);
    }
  };
  const schedule = () => {
    if (stopped) return;
    running = pass().finally(() => {
      if (!stopped) timer = setTimeout(schedule, options.everyMs);
    });
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
