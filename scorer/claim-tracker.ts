// Marks judgings as JUDGING when a runner takes their job. Runners never touch the database, so the
// scorer watches the judge queues' `active` events and records the claim (status, attempt, runner).
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { TARGET_IDS, judgeQueueName } from '../contracts';
import { claimJudging } from '../lib/db/claim-judging';
import type { Db } from '../lib/db/client';
import type { QueueSet } from '../lib/queue/producer';

const JOB_ID = /^judging-(.+)-r(\d+)$/;

export interface ClaimTracker {
  /** Resolves once every listener is connected (events before that are not seen). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Best effort by design: an event missed while the scorer is down only leaves a judging QUEUED a
 * little longer; its result is recorded all the same.
 */
export function startClaimTracker(options: {
  db: Db;
  queues: QueueSet;
  /** A new connection for each listener: their blocking reads cannot share one. */
  connect: (purpose: string) => Redis;
  log: (line: string) => void;
}): ClaimTracker {
  const { db, queues, log } = options;
  const listeners = TARGET_IDS.map((target) => {
    const events = new QueueEvents(judgeQueueName(target), {
      connection: options.connect(`claims-${target}`),
      prefix: queues.prefix,
    });
    events.on('error', (error) => log(`claim tracker (${target}): ${error.message}`));
    events.on('active', ({ jobId }) => {
      const m = JOB_ID.exec(jobId);
      if (!m) return;
      const judgingId = m[1] as string;
      const round = Number(m[2]);
      void (async () => {
        const job = await queues.judgeQueue(target).getJob(jobId);
        const claim = await claimJudging(db, {
          judgingId,
          round,
          runner: job?.processedBy ?? 'unknown',
        });
        if (claim.claimed)
          log(`judging ${judgingId} r${round}: taken by ${job?.processedBy ?? 'a runner'}`);
      })().catch((error: Error) => log(`claim of ${jobId} not recorded: ${error.message}`));
    });
    return events;
  });
  return {
    async ready() {
      await Promise.all(listeners.map((l) => l.waitUntilReady()));
    },
    async close() {
      await Promise.allSettled(listeners.map((l) => l.close()));
    },
  };
}
