// The reconciler: PostgreSQL says what must be judged, Redis what is in flight. Judgings still waiting
// whose jobs Redis no longer has (flushed, restarted without persistence, never reached because it
// was down at submit time) are queued again; the same ids make a duplicate impossible.
import {
  judgeQueueName,
  judgingJobId,
  scoreJobId,
  SCORE_QUEUE,
  targetIdSchema,
} from '../contracts';
import type { Db } from '../lib/db/client';
import { listUnqueuedJudgings, type UnqueuedJudging } from '../lib/db/list-unqueued-judgings';
import {
  enqueueSubmission,
  QueueTimeoutError,
  withTimeout,
  type QueueSet,
} from '../lib/queue/producer';

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
}

export const DEFAULT_RECONCILE_OLDER_THAN_MS = 60_000;

type JobState = Awaited<ReturnType<ReturnType<QueueSet['queue']>['getJobState']>>;

async function stateOf(queues: QueueSet, queueName: string, jobId: string): Promise<JobState> {
  return withTimeout(
    queues.queue(queueName).getJobState(jobId),
    queues.enqueueTimeoutMs,
    `Looking up job ${jobId}`,
  );
}

async function reconcileSubmission(
  db: Db,
  queues: QueueSet,
  submissionId: string,
  judgings: UnqueuedJudging[],
  report: ReconcileReport,
  log: (line: string) => void,
): Promise<void> {
  const round = Math.max(...judgings.map((j) => j.round));
  const parentId = scoreJobId(submissionId, round);
  const parent = await stateOf(queues, SCORE_QUEUE, parentId);
  const children = await Promise.all(
    judgings.map((j) => {
      const target = targetIdSchema.safeParse(j.target);
      // A target this version of the platform does not know has no queue to look in.
      if (!target.success) return 'unknown' as const;
      return stateOf(queues, judgeQueueName(target.data), judgingJobId(j.judgingId, j.round));
    }),
  );
  if (parent === 'failed') {
    // Its children's answers are still held by the parent: running it again records them.
    const job = await withTimeout(
      queues.scoreQueue().getJob(parentId),
      queues.enqueueTimeoutMs,
      `Looking up job ${parentId}`,
    );
    await withTimeout(
      job?.retry('failed') ?? Promise.resolve(),
      queues.enqueueTimeoutMs,
      `Retrying job ${parentId}`,
    );
    report.retried.push(submissionId);
    log(`submission ${submissionId}: score job had failed, retried`);
    return;
  }
  if (parent === 'unknown' || children.includes('unknown')) {
    await enqueueSubmission(db, queues, submissionId);
    report.requeued.push(submissionId);
    log(`submission ${submissionId}: jobs missing from Redis, queued again`);
    return;
  }
  if (parent === 'completed') {
    // The scorer ran but these judgings are not done: nothing in the queue will change that.
    report.stuck.push(submissionId);
    log(
      `submission ${submissionId}: scored round ${round} but judgings ${judgings
        .map((j) => j.judgingId)
        .join(', ')} are still ${judgings[0]?.status}; rejudge it`,
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
