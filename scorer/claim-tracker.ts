// Records where judgings stand while runners hold them. Runners never touch the database, so the
// scorer watches the judge queues' events: `active` (a runner took the job: WAITING for the host
// lock, an attempt counted) and the first `progress` past the 'waiting' stage (JUDGING). The same
// for "rejudge N times" judgings (their JudgingRepeat row) and final session parts, whose every
// progress that carries a finished round is recorded too: the session's checkpoint.
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  TARGET_IDS,
  finalSessionProgressSchema,
  judgeQueueName,
  type FinalRound,
  type TargetId,
} from '../contracts';
import { claimJudging } from '../lib/server/db/judgings/claim-judging';
import { claimRepeatJudging } from '../lib/server/db/judgings/claim-repeat-judging';
import { recordFinalSessionProgress } from '../lib/server/db/final/record-final-session-progress';
import type { Db } from '../lib/server/db/client';
import type { QueueSet } from '../lib/server/queue/producer';

const JOB_ID = /^judging-(.+)-r(\d+)$/;
const REPEAT_JOB_ID = /^judging-repeat-(.+)$/;
const FINAL_JOB_ID = /^final-(.+)-p(\d+)$/;
/** Jobs already seen judging, so a judging's many progress events cost one database write. */
const SEEN_JUDGING_LIMIT = 10_000;

export interface ClaimTracker {
  /** Resolves once every listener is connected (events before that are not seen). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const CLAIM_WORDS = { WAITING: 'taken by', JUDGING: 'judged by' } as const;

/** One chain per job keeps its claims in order (WAITING must not land after JUDGING). */
function claimChains(log: (line: string) => void) {
  const chains = new Map<string, Promise<void>>();
  const inOrder = (jobId: string, work: () => Promise<void>) => {
    const previous = chains.get(jobId) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((error: Error) => log(`claim of ${jobId} not recorded: ${error.message}`))
      .finally(() => {
        if (chains.get(jobId) === next) chains.delete(jobId);
      });
    chains.set(jobId, next);
  };
  return { chains, inOrder };
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
  const { chains, inOrder } = claimChains(log);
  const judging = new Set<string>();
  const claimFinal = (jobId: string, status: 'WAITING' | 'JUDGING', round?: FinalRound) => {
    const sessionId = FINAL_JOB_ID.exec(jobId)?.[1] as string;
    inOrder(jobId, async () => {
      const r = await recordFinalSessionProgress(db, { sessionId, status, round });
      if (r.recorded && round)
        log(`final session ${sessionId}: round ${round.round} recorded (${r.roundsDone} done)`);
    });
  };
  const claim = (target: TargetId, jobId: string, status: 'WAITING' | 'JUDGING') => {
    const repeat = REPEAT_JOB_ID.exec(jobId);
    if (repeat) {
      inOrder(jobId, async () => {
        await claimRepeatJudging(db, { repeatId: repeat[1] as string, status });
      });
      return;
    }
    if (FINAL_JOB_ID.test(jobId)) return claimFinal(jobId, status);
    const m = JOB_ID.exec(jobId);
    if (!m) return;
    const judgingId = m[1] as string;
    const round = Number(m[2]);
    inOrder(jobId, async () => {
      const runner = (await queues.judgeQueue(target).getJob(jobId))?.processedBy ?? 'unknown';
      const claimed = await claimJudging(db, { judgingId, round, runner, status });
      if (claimed.claimed) log(`judging ${judgingId} r${round}: ${CLAIM_WORDS[status]} ${runner}`);
    });
  };
  const listeners = TARGET_IDS.map((target) => {
    const events = new QueueEvents(judgeQueueName(target), {
      connection: options.connect(`claims-${target}`),
      prefix: queues.prefix,
    });
    events.on('error', (error) => log(`claim tracker (${target}): ${error.message}`));
    events.on('active', ({ jobId }) => {
      judging.delete(jobId); // a new attempt waits for the host lock again
      claim(target, jobId, 'WAITING');
    });
    events.on('progress', ({ jobId, data }) => {
      if (FINAL_JOB_ID.test(jobId)) {
        // Every round a part finishes is its checkpoint: none may be skipped like a judging's.
        const progress = finalSessionProgressSchema.safeParse(data);
        if (!progress.success || progress.data.stage === 'waiting') return;
        if (progress.data.round || !judging.has(jobId)) {
          judging.add(jobId);
          claimFinal(jobId, 'JUDGING', progress.data.round);
        }
        return;
      }
      const stage = (data as { stage?: unknown } | null)?.stage;
      if (typeof stage !== 'string' || stage === 'waiting' || judging.has(jobId)) return;
      if (judging.size >= SEEN_JUDGING_LIMIT) judging.clear();
      judging.add(jobId);
      claim(target, jobId, 'JUDGING');
    });
    return events;
  });
  return {
    async ready() {
      await Promise.all(listeners.map((l) => l.waitUntilReady()));
    },
    async close() {
      await Promise.allSettled(listeners.map((l) => l.close()));
      await Promise.allSettled([...chains.values()]);
    },
  };
}
