// The scorer service: a BullMQ worker on the `score` queue that records judging results in
// PostgreSQL, plus the reconciler and the claim tracker, started and stopped together.
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  JUDGING_CANCEL_TTL_SECONDS,
  SCORE_QUEUE,
  judgingCancelKey,
  targetIdSchema,
} from '../contracts';
import type { Db } from '../lib/db/client';
import type { QueueSet } from '../lib/queue/producer';
import { startClaimTracker, type ClaimTracker } from './claim-tracker';
import {
  DEFAULT_RECONCILE_OLDER_THAN_MS,
  startReconciler,
  type ReconcileReport,
  type ReconcilerHandle,
} from './reconcile';
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
  onReconciled?: (report: ReconcileReport) => void;
}

export interface Scorer {
  worker: Worker;
  /** Resolves once the worker and the claim tracker are connected. */
  ready(): Promise<void>;
  /** Finishes the jobs in hand (BullMQ's graceful close), stops the reconciler and the tracker. */
  close(): Promise<void>;
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
  const worker = new Worker(
    SCORE_QUEUE,
    async (job: Job) => {
      const result = await scoreSubmission(
        db,
        job,
        (line) => log(`${job.id}: ${line}`),
        (judgings) => raiseCancelFlags(flags, queues.prefix, judgings),
      );
      options.onScored?.(result);
      return result;
    },
    {
      connection: connect('scorer'),
      prefix: queues.prefix,
      concurrency: options.concurrency ?? 2,
      ...(options.name ? { name: options.name } : {}),
      lockDuration: options.lockDurationMs ?? 30_000,
      ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
      // A scorer killed mid-job twice in a row should not fail the job: the reconciler would have to.
      maxStalledCount: 3,
    },
  );
  worker.on('error', (error) => log(`worker: ${error.message}`));
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1);
    log(
      `${job.id}: attempt ${job.attemptsMade} failed${final ? ' for good' : ', will retry'}: ${error.message}`,
    );
  });
  worker.on('completed', (job, result: ScoreJobReturn) => {
    const summary = result.judgings.map((j) => `${j.judgingId}:${j.outcome}`).join(' ');
    log(
      `${job.id}: ${summary} → ${result.status ?? '?'} ${result.verdict ?? ''}${result.score !== null ? ` score ${result.score}` : ''}`,
    );
  });

  let reconciler: ReconcilerHandle | undefined;
  if (options.reconcileEveryMs !== null)
    reconciler = startReconciler(db, queues, {
      everyMs: options.reconcileEveryMs ?? 60_000,
      olderThanMs: options.reconcileOlderThanMs ?? DEFAULT_RECONCILE_OLDER_THAN_MS,
      log: (line) => log(`reconcile: ${line}`),
      ...(options.onReconciled ? { onReport: options.onReconciled } : {}),
    });

  let tracker: ClaimTracker | undefined;
  if (options.trackClaims !== false) tracker = startClaimTracker({ db, queues, connect, log });

  let closing: Promise<void> | undefined;
  return {
    worker,
    async ready() {
      await Promise.all([worker.waitUntilReady(), tracker?.ready()]);
    },
    close() {
      closing ??= (async () => {
        await reconciler?.stop();
        await Promise.allSettled([worker.close(), tracker?.close()]);
        await Promise.allSettled(connections.map((c) => c.quit()));
      })();
      return closing;
    },
  };
}

/**
 * The flag a runner polls while it holds a judging (runner/service/judging-processor.ts): one still
 * queued fails the moment a runner takes it, one running stops within about a second.
 */
async function raiseCancelFlags(
  redis: Redis,
  prefix: string,
  judgings: Parameters<CancelJudgings>[0],
): Promise<void> {
  for (const j of judgings) {
    if (!targetIdSchema.safeParse(j.target).success) continue;
    await redis.set(
      judgingCancelKey(prefix, j.judgingId, j.round),
      j.message,
      'EX',
      JUDGING_CANCEL_TTL_SECONDS,
    );
  }
}
