// The scorer service: a BullMQ worker on the `score` queue that records judging results in
// PostgreSQL, plus the reconciler and the claim tracker, started and stopped together.
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  FINAL_SESSION_SCORE_JOB_NAME,
  JUDGING_CANCEL_TTL_SECONDS,
  REPEAT_SCORE_JOB_NAME,
  SCORE_QUEUE,
  judgingCancelKey,
  judgingJobId,
  targetIdSchema,
} from '../contracts';
import type { Db } from '../lib/server/db/client';
import type { QueueSet } from '../lib/server/queue/producer';
import { startClaimTracker, type ClaimTracker } from './claim-tracker';
import {
  DEFAULT_RECONCILE_OLDER_THAN_MS,
  startReconciler,
  type ReconcileReport,
  type ReconcilerHandle,
} from './reconcile';
import { scoreFinalSession, type FinalSessionScoreReturn } from './final-session-score-job';
import { scoreRepeat, type RepeatScoreReturn } from './repeat-score-job';
import { scoreSubmission, type CancelJudgings, type ScoreJobReturn } from './score-job';

export interface ScorerOptions {
  db: Db;
  /** Producer side (the reconciler re-enqueues through it). */
  queues: QueueSet;
  /**
   * Opens a connection for the worker and for each event listener (blocking reads need their own);
   * they must wait out Redis outages (`maxRetriesPerRequest: null`). The scorer closes them.
   */
  connect: (purpose: string) => Redis;
  /** Shown as the job's `processedBy`. */
  name?: string;
  concurrency?: number;
  /** How long a scorer may hold a job before another takes it over (it renews while alive). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Reconcile every this often; null: never (another process does). */
  reconcileEveryMs?: number | null;
  reconcileOlderThanMs?: number;
  /** Record runner claims (JUDGING status) from the judge queues' events. */
  trackClaims?: boolean;
  log?: (line: string) => void;
  onScored?: (result: ScoreJobReturn) => void;
  /** A final session part or a repeat judging recorded. */
  onRecorded?: (result: FinalSessionScoreReturn | RepeatScoreReturn) => void;
  onReconciled?: (report: ReconcileReport) => void;
}

export interface Scorer {
  worker: Worker;
  /** Resolves once the worker and the claim tracker are connected. */
  ready(): Promise<void>;
  /**
   * Finishes the jobs in hand (BullMQ's graceful close), stops the reconciler and the tracker —
   * within `graceMs` (default 20 s) whether or not Redis and PostgreSQL answer: then it closes
   * without waiting, and a job in hand is taken over once its lock expires (nothing is lost).
   */
  close(graceMs?: number): Promise<void>;
}

const DEFAULT_CLOSE_GRACE_MS = 20_000;
/** What a forced close may still take before the connections are cut. */
const CLOSE_FORCED_MS = 3_000;

/** True when the work finished within `ms`, false when it was still running (it is not stopped). */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return finished;
}

export function startScorer(options: ScorerOptions): Scorer {
  const log = options.log ?? (() => {});
  const { db, queues } = options;
  const connections: Redis[] = [];
  const connect = (purpose: string) => {
    const connection = options.connect(purpose);
    connections.push(connection);
    return connection;
  };
  // Plain commands (the cancel flags) next to the worker's own connection.
  const flags = connect('scorer-flags');
  const worker = new Worker(SCORE_QUEUE, scoreProcessor(options, log, flags), {
    connection: connect('scorer'),
    prefix: queues.prefix,
    concurrency: options.concurrency ?? 2,
    // Absent, not undefined: BullMQ spreads these over its defaults.
    ...(options.name ? { name: options.name } : {}),
    lockDuration: options.lockDurationMs ?? 30_000,
    ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
    // A scorer killed mid-job twice in a row should not fail the job: the reconciler would have to.
    maxStalledCount: 3,
  });
  logWorkerEvents(worker, log);

  let reconciler: ReconcilerHandle | undefined;
  if (options.reconcileEveryMs !== null)
    reconciler = startReconciler(db, queues, {
      everyMs: options.reconcileEveryMs ?? 60_000,
      olderThanMs: options.reconcileOlderThanMs ?? DEFAULT_RECONCILE_OLDER_THAN_MS,
      log: (line) => log(`reconcile: ${line}`),
      onReport: options.onReconciled,
    });

  let tracker: ClaimTracker | undefined;
  if (options.trackClaims !== false) tracker = startClaimTracker({ db, queues, connect, log });

  let closing: Promise<void> | undefined;
  return {
    worker,
    async ready() {
      await Promise.all([worker.waitUntilReady(), tracker?.ready()]);
    },
    close(graceMs = DEFAULT_CLOSE_GRACE_MS) {
      closing ??= closeScorer({ worker, tracker, reconciler, connections, graceMs, log });
      return closing;
    },
  };
}

/** The score worker's job: a judging's score, a final session part's or a repeat judging's. */
function scoreProcessor(options: ScorerOptions, log: (line: string) => void, flags: Redis) {
  const { db, queues } = options;
  return async (job: Job) => {
    const jobLog = (line: string) => log(`${job.id}: ${line}`);
    // One score queue, three parents: a judging's (name 'score'), a final session part's and a
    // repeat judging's, each recorded where it belongs.
    if (job.name === FINAL_SESSION_SCORE_JOB_NAME || job.name === REPEAT_SCORE_JOB_NAME) {
      const recorded =
        job.name === FINAL_SESSION_SCORE_JOB_NAME
          ? await scoreFinalSession(db, job, jobLog)
          : await scoreRepeat(db, job, jobLog);
      options.onRecorded?.(recorded);
      return recorded;
    }
    const result = await scoreSubmission(db, job, jobLog, (judgings) =>
      cancelJudgingJobs(flags, queues, judgings, jobLog),
    );
    options.onScored?.(result);
    return result;
  };
}

function logWorkerEvents(worker: Worker, log: (line: string) => void): void {
  worker.on('error', (error) => log(`worker: ${error.message}`));
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1);
    log(
      `${job.id}: attempt ${job.attemptsMade} failed${final ? ' for good' : ', will retry'}: ${error.message}`,
    );
  });
  worker.on(
    'completed',
    (job, result: ScoreJobReturn | FinalSessionScoreReturn | RepeatScoreReturn) => {
      if ('kind' in result) {
        log(`${job.id}: ${result.kind} ${result.outcome}`);
        return;
      }
      const summary = result.judgings.map((j) => `${j.judgingId}:${j.outcome}`).join(' ');
      log(
        `${job.id}: ${summary} → ${result.status ?? '?'} ${result.verdict ?? ''}${result.score !== null ? ` score ${result.score}` : ''}`,
      );
    },
  );
}

/** The graceful close within `graceMs`, then a forced one; the connections are cut last. */
async function closeScorer(parts: {
  worker: Worker;
  tracker: ClaimTracker | undefined;
  reconciler: ReconcilerHandle | undefined;
  connections: Redis[];
  graceMs: number;
  log: (line: string) => void;
}): Promise<void> {
  const { worker, tracker, reconciler, connections, graceMs, log } = parts;
  const deadline = Date.now() + graceMs;
  const left = () => Math.max(0, deadline - Date.now());
  const graceful = await within(
    (async () => {
      await reconciler?.stop();
      await Promise.allSettled([worker.close(), tracker?.close()]);
    })(),
    left(),
  );
  if (!graceful) {
    log(
      `still busy ${Math.round(graceMs / 1000)} s after the stop (Redis or PostgreSQL not answering): ` +
        'closing without waiting; the jobs in hand are retried once their locks expire',
    );
    await within(Promise.allSettled([worker.close(true), tracker?.close()]), CLOSE_FORCED_MS);
  }
  // quit() waits for Redis to answer; a connection that is not ready is only cut.
  await within(
    Promise.allSettled(connections.map((c) => (c.status === 'ready' ? c.quit() : c.disconnect()))),
    CLOSE_FORCED_MS,
  );
  for (const c of connections) c.disconnect();
}

/**
 * Cancelled judgings leave the queue at once: a job still waiting is removed (BullMQ then lets its
 * score parent run, which records nothing for a cancelled judging); one a runner holds (locked,
 * not removable) stops on the flag the runner polls (runner/service/judging-processor.ts) within
 * about a second. The flag also covers a job re-added by a race with the reconciler.
 */
async function cancelJudgingJobs(
  redis: Redis,
  queues: QueueSet,
  judgings: Parameters<CancelJudgings>[0],
  log: (line: string) => void,
): Promise<void> {
  for (const j of judgings) {
    const target = targetIdSchema.safeParse(j.target);
    if (!target.success) continue;
    await redis.set(
      judgingCancelKey(queues.prefix, j.judgingId, j.round),
      j.message,
      'EX',
      JUDGING_CANCEL_TTL_SECONDS,
    );
    const job = await queues.judgeQueue(target.data).getJob(judgingJobId(j.judgingId, j.round));
    const state = job ? await job.getState().catch(() => 'unknown') : 'unknown';
    if (!job || !['waiting', 'prioritized', 'delayed'].includes(state)) continue;
    await job.remove().then(
      () => log(`judging ${j.judgingId} r${j.round}: cancelled, its job removed from the queue`),
      // Taken by a runner meanwhile: the flag stops it.
      () => undefined,
    );
  }
}
