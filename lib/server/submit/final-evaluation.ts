// The organizer's final evaluation (docs/organizers.md, "Provisional and final rankings"): started
// after the deadline (or once the contest is closed), one session per target timed by the runners
// (a flow per session part: lib/server/queue/producer.ts), ranked by the scorer when every session is done,
// published by the organizer. Each step is audit-logged in the database layer.
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_FINAL_ERROR_RATE,
  DEFAULT_FINAL_ROUNDS,
  FINAL_SESSION_JOB_NAME,
  MAX_FINAL_ROUNDS,
  MIN_FINAL_ROUNDS,
  finalSessionCancelKey,
  finalSessionScoreJobId,
  JUDGING_CANCEL_TTL_SECONDS,
  type TargetId,
} from '../../../contracts';
import { manifestBenchmark, resolveBenchmark } from '../../core/challenge/benchmark-definition';
import { cancelFinalEvaluationRecord } from '../db/final/cancel-final-evaluation';
import type { Db } from '../db/client';
import { createFinalEvaluation } from '../db/final/create-final-evaluation';
import { RefusedError } from '../db/errors';
import { getContest } from '../db/contest/get-contest';
import { getFinalSessionJobs } from '../db/final/get-final-session-jobs';
import { BENCHMARK_DEFINITION_SELECT } from '../db/judgings/judging-job-settings';
import { publishFinalResultsRecord } from '../db/final/publish-final-results';
import {
  enqueueFinalSessionParts,
  queueRedis,
  withTimeout,
  type QueueSet,
} from '../queue/producer';
import { listRunners } from '../queue/runner-heartbeat';

export { requestRepeatJudgings } from './repeat-judgings';

export interface StartFinalEvaluationOptions {
  db: Db;
  queues: QueueSet;
  actorId: string;
  challengeSlug: string;
  /** Time on the provisional judgings' seed instead of a fresh secret one. */
  keepProvisionalSeed?: boolean;
  rounds?: number;
  /** Spread each target's rounds across its live runners (each host with its own baseline). */
  spreadAcrossHosts?: boolean;
  errorRate?: number;
  /** Live runners of a target (default: their heartbeats in Redis). */
  liveRunners?: (target: TargetId) => Promise<number>;
  now?: Date;
  onEnqueueError?: (error: Error) => void;
}

export interface StartedFinalEvaluation {
  evaluationId: string;
  finalists: number;
  sessions: number;
  /** Session parts Redis took now; the others are queued by the reconciler. */
  queuedParts: number;
}

function checkOptions(options: StartFinalEvaluationOptions): { rounds: number; errorRate: number } {
  const rounds = options.rounds ?? DEFAULT_FINAL_ROUNDS;
  if (!Number.isInteger(rounds) || rounds < MIN_FINAL_ROUNDS || rounds > MAX_FINAL_ROUNDS)
    throw new RefusedError(
      `Rounds must be a whole number from ${MIN_FINAL_ROUNDS} to ${MAX_FINAL_ROUNDS}, not ${rounds}.`,
      'bad-rounds',
    );
  const errorRate = options.errorRate ?? DEFAULT_FINAL_ERROR_RATE;
  if (!(errorRate > 0 && errorRate <= 0.2))
    throw new RefusedError(
      `The error rate must be above 0 and at most 0.2, not ${errorRate}.`,
      'bad-error-rate',
    );
  return { rounds, errorRate };
}

async function countLiveRunners(queues: QueueSet, target: TargetId): Promise<number> {
  const redis = await queueRedis(queues);
  const { runners } = await withTimeout(
    listRunners(redis, queues.prefix),
    queues.enqueueTimeoutMs,
    'Listing runners',
  );
  return runners.filter((r) => r.target === target).length;
}

/** The session's benchmark input: the contest's size, and a fresh secret seed unless kept. */
async function finalBenchmark(
  db: Db,
  challengeVersionId: string,
  keepProvisionalSeed: boolean,
): Promise<{ sizeBytes: number; seed: string }> {
  const version = await db.challengeVersion.findUniqueOrThrow({
    where: { id: challengeVersionId },
    select: { manifest: true, challenge: { select: BENCHMARK_DEFINITION_SELECT } },
  });
  const provisional = resolveBenchmark(manifestBenchmark(version.manifest), version.challenge);
  if (!keepProvisionalSeed)
    return { sizeBytes: provisional.sizeBytes, seed: randomBytes(32).toString('hex') };
  if (provisional.seed === undefined)
    throw new RefusedError(
      'The platform does not know the provisional seed (it is only in the runners\u2019 environment): start with a fresh seed instead.',
      'no-provisional-seed',
    );
  return { sizeBytes: provisional.sizeBytes, seed: provisional.seed };
}

export async function startFinalEvaluation(
  options: StartFinalEvaluationOptions,
): Promise<StartedFinalEvaluation> {
  const { db, queues } = options;
  const { rounds, errorRate } = checkOptions(options);
  const contest = await getContest(db, options.challengeSlug, options.now);
  if (contest.open)
    throw new RefusedError(
      contest.settings.deadline
        ? `The final evaluation starts after the deadline (${contest.settings.deadline.toISOString()}), or once the contest is closed.`
        : 'The contest has no deadline: close it first, then start the final evaluation.',
      'before-deadline',
    );
  const keep = options.keepProvisionalSeed ?? false;
  const spread = options.spreadAcrossHosts ?? false;
  const benchmark = await finalBenchmark(db, contest.challengeVersionId, keep);
  const parts: Record<string, number> = {};
  for (const target of Object.keys(contest.manifest.targets) as TargetId[])
    parts[target] = spread
      ? Math.max(1, await (options.liveRunners ?? ((t) => countLiveRunners(queues, t)))(target))
      : 1;
  const created = await createFinalEvaluation(db, {
    actorId: options.actorId,
    challengeSlug: options.challengeSlug,
    challengeVersionId: contest.challengeVersionId,
    seed: benchmark.seed,
    keptProvisionalSeed: keep,
    benchmarkBytes: benchmark.sizeBytes,
    rounds,
    spreadAcrossHosts: spread,
    errorRate,
    parts,
  });
  let queuedParts = 0;
  for (const session of created.sessions) {
    try {
      queuedParts += (
        await enqueueFinalSessionParts(queues, await getFinalSessionJobs(db, session.sessionId))
      ).length;
    } catch (error) {
      // The evaluation is in the database: the reconciler queues what Redis did not take.
      options.onEnqueueError?.(error as Error);
    }
  }
  return {
    evaluationId: created.evaluationId,
    finalists: created.finalists,
    sessions: created.sessions.length,
    queuedParts,
  };
}

export interface CancelFinalEvaluationOptions {
  db: Db;
  queues: QueueSet;
  actorId: string;
  evaluationId: string;
  reason: string;
}

/**
 * Cancelled in the database first (a late result is then ignored), then each part's flow withdrawn
 * and a cancel flag raised for a runner holding one (a job it holds cannot be removed).
 */
export async function cancelFinalEvaluation(options: CancelFinalEvaluationOptions): Promise<void> {
  const { queues } = options;
  const sessions = await cancelFinalEvaluationRecord(options.db, options);
  const redis = await queueRedis(queues);
  for (const s of sessions)
    for (let part = 0; part < s.parts; part++) {
      const why = `the organizers cancelled the final evaluation: ${options.reason}`;
      await withTimeout(
        redis.set(
          finalSessionCancelKey(queues.prefix, s.sessionId, part),
          why,
          'EX',
          JUDGING_CANCEL_TTL_SECONDS,
        ),
        queues.enqueueTimeoutMs,
        `Flagging ${FINAL_SESSION_JOB_NAME} ${s.sessionId} part ${part}`,
      );
      try {
        await withTimeout(
          queues
            .scoreQueue()
            .remove(finalSessionScoreJobId(s.sessionId, part), { removeChildren: true }),
          queues.enqueueTimeoutMs,
          `Withdrawing ${FINAL_SESSION_JOB_NAME} ${s.sessionId} part ${part}`,
        );
      } catch {
        // A part a runner holds cannot be removed: it ends (or stops at the flag), and the
        // scorer ignores its result, the evaluation being cancelled.
      }
    }
}

export async function publishFinalResults(options: {
  db: Db;
  actorId: string;
  evaluationId: string;
}): Promise<void> {
  await publishFinalResultsRecord(options.db, options);
}
