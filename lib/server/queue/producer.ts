// The producer side of the queue: one small BullMQ flow per judging (a `score` parent over one
// judging child), so each target's result is recorded as soon as it is done, with job ids derived
// from database ids so that enqueuing again never duplicates work.
import {
  FlowProducer,
  Queue,
  type ConnectionOptions,
  type FlowJob,
  type JobsOptions,
} from 'bullmq';
import type { Redis } from 'ioredis';
import {
  FINAL_SESSION_JOB_NAME,
  FINAL_SESSION_SCORE_JOB_NAME,
  REPEAT_SCORE_JOB_NAME,
  SCORE_QUEUE,
  finalSessionJobId,
  finalSessionJobSchema,
  finalSessionScoreJobId,
  finalSessionScoreJobSchema,
  repeatJobId,
  repeatScoreJobId,
  repeatScoreJobSchema,
  type FinalSessionJob,
  judgeQueueName,
  judgingJobId,
  judgingJobSchema,
  judgingScoreJobId,
  scoreJobSchema,
  type JudgingJob,
  type TargetId,
  AppError,
} from '../../../contracts';
import { withTimeout as raceTimeout } from '../../core/async/timeout';

type KeepJobs = Exclude<JobsOptions['removeOnComplete'], boolean | number | undefined>;

export interface RetryPolicy {
  attempts: number;
  /** First retry delay; each further retry waits twice as long. */
  backoffMs: number;
  /** Finished jobs kept in Redis (the database keeps results for good). */
  keepCompleted: KeepJobs;
  keepFailed: KeepJobs;
}

export interface JobPolicies {
  /** A judging child: retried only for JUDGE_ERROR (the runner throws for it, nothing else). */
  judge: RetryPolicy;
  /** The score parent: retried while PostgreSQL is unreachable, so no result is lost. */
  score: RetryPolicy;
}

const DAY_S = 24 * 3600;

const DEFAULT_JOB_POLICIES: JobPolicies = {
  judge: {
    attempts: 3,
    backoffMs: 30_000,
    keepCompleted: { age: 7 * DAY_S, count: 10_000 },
    keepFailed: { age: 30 * DAY_S, count: 10_000 },
  },
  // 12 attempts from 5 s doubling: about 2.8 hours of database outage before the reconciler must step in.
  score: {
    attempts: 12,
    backoffMs: 5_000,
    keepCompleted: { age: 7 * DAY_S, count: 10_000 },
    keepFailed: { age: 30 * DAY_S, count: 10_000 },
  },
};

export interface QueueSetOptions {
  /** Shared by the flow producer and the queues; use `enableOfflineQueue: false` when serving HTTP. */
  connection: ConnectionOptions;
  /** BullMQ key prefix: every key of this deployment (or test) starts with it. */
  prefix: string;
  policies?: { judge?: Partial<RetryPolicy>; score?: Partial<RetryPolicy> };
  /** An enqueue still waiting for Redis after this long is given up (the reconciler will do it). */
  enqueueTimeoutMs?: number;
}

/** What the producer, the reconciler and rejudges share: one flow producer and a queue per name. */
export interface QueueSet {
  readonly prefix: string;
  readonly policies: JobPolicies;
  readonly enqueueTimeoutMs: number;
  readonly flows: FlowProducer;
  /** A Queue handle (for getters: getJob, getJobState, counts), created once per name. */
  queue(name: string): Queue;
  judgeQueue(target: TargetId): Queue;
  scoreQueue(): Queue;
  close(): Promise<void>;
}

/** An error a queue handle emits (Redis unreachable) goes to `onError` instead of crashing the process. */
export function createQueueSet(
  options: QueueSetOptions,
  onError: (error: Error) => void = () => {},
): QueueSet {
  const policies: JobPolicies = {
    judge: { ...DEFAULT_JOB_POLICIES.judge, ...options.policies?.judge },
    score: { ...DEFAULT_JOB_POLICIES.score, ...options.policies?.score },
  };
  const flows = new FlowProducer({ connection: options.connection, prefix: options.prefix });
  flows.on('error', onError);
  const queues = new Map<string, Queue>();
  const queue = (name: string): Queue => {
    let q = queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: options.connection, prefix: options.prefix });
      q.on('error', onError);
      queues.set(name, q);
    }
    return q;
  };
  return {
    prefix: options.prefix,
    policies,
    enqueueTimeoutMs: options.enqueueTimeoutMs ?? 5_000,
    flows,
    queue,
    judgeQueue: (target) => queue(judgeQueueName(target)),
    scoreQueue: () => queue(SCORE_QUEUE),
    async close() {
      await Promise.allSettled([flows.close(), ...[...queues.values()].map((q) => q.close())]);
    },
  };
}

export class QueueTimeoutError extends AppError {
  override name = 'QueueTimeoutError';
  readonly code = 'unavailable' as const;
}

export interface EnqueueOptions {
  /** BullMQ priority of the judging jobs (lower runs first; 0, the default, runs before any). */
  priority?: number;
}

export interface EnqueuedSubmission {
  submissionId: string;
  /** One score parent per judging enqueued; empty when every judging is already settled. */
  scoreJobIds: string[];
  judgingJobIds: string[];
}

function jobOptions(policy: RetryPolicy, jobId: string): JobsOptions {
  return {
    jobId,
    attempts: policy.attempts,
    backoff: { type: 'exponential', delay: policy.backoffMs },
    removeOnComplete: policy.keepCompleted,
    removeOnFail: policy.keepFailed,
  };
}

/**
 * BullMQ waits for Redis to come back before running any command; a caller that must not wait
 * (an HTTP request, a reconcile pass) races it against this timeout. The command itself may still
 * run later, which the derived job ids make harmless.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return raceTimeout(
    promise,
    ms,
    () => new QueueTimeoutError(`${what}: Redis did not answer within ${ms} ms`),
  );
}

/**
 * The flows for judgings the caller already holds (a submission just created: no need to read it
 * back), added together in one call. Each job is parsed with the contract first, so one the
 * runners could not take fails here. Each flow is a `score` parent over one judging child: the
 * parent runs (and the scorer records that target's result) the moment its child is done, whatever
 * the other targets are doing.
 */
export async function enqueueJudgings(
  queues: QueueSet,
  submissionId: string,
  jobs: readonly JudgingJob[],
  options: EnqueueOptions = {},
): Promise<EnqueuedSubmission> {
  const judgings = jobs
    .map((j) => judgingJobSchema.parse(j))
    .sort((a, b) => a.target.localeCompare(b.target));
  if (judgings.some((j) => j.submissionId !== submissionId))
    throw new Error(`A judging of another submission in the flow of ${submissionId}`);
  const { judge, score } = queues.policies;
  const flows: FlowJob[] = judgings.map((j) => ({
    name: 'score',
    queueName: SCORE_QUEUE,
    data: scoreJobSchema.parse({ submissionId, round: j.round }),
    opts: jobOptions(score, judgingScoreJobId(j.judgingId, j.round)),
    children: [
      {
        name: 'judge',
        queueName: judgeQueueName(j.target),
        data: j,
        opts: {
          ...jobOptions(judge, judgingJobId(j.judgingId, j.round)),
          // A judging that finally fails still lets the scorer run, which records it as JUDGE_ERROR.
          ignoreDependencyOnFailure: true,
          ...(options.priority ? { priority: options.priority } : {}),
        },
      },
    ],
  }));
  if (flows.length > 0)
    await withTimeout(
      queues.flows.addBulk(flows),
      queues.enqueueTimeoutMs,
      `Enqueuing submission ${submissionId}`,
    );
  return {
    submissionId,
    scoreJobIds: judgings.map((j) => judgingScoreJobId(j.judgingId, j.round)),
    judgingJobIds: judgings.map((j) => judgingJobId(j.judgingId, j.round)),
  };
}

/**
 * One flow per final session part: a `final-session-score` parent on the score queue over the
 * part's final-session job on its target's judge queue. Ids come from (session, part), so a second
 * enqueue (the reconciler, a retry) adds nothing while Redis still holds the part.
 */
export async function enqueueFinalSessionParts(
  queues: QueueSet,
  jobs: readonly FinalSessionJob[],
): Promise<string[]> {
  const { judge, score } = queues.policies;
  const parts = jobs.map((j) => finalSessionJobSchema.parse(j));
  const flows: FlowJob[] = parts.map((j) => ({
    name: FINAL_SESSION_SCORE_JOB_NAME,
    queueName: SCORE_QUEUE,
    data: finalSessionScoreJobSchema.parse({
      evaluationId: j.evaluationId,
      sessionId: j.sessionId,
      part: j.part,
    }),
    opts: jobOptions(score, finalSessionScoreJobId(j.sessionId, j.part)),
    children: [
      {
        name: FINAL_SESSION_JOB_NAME,
        queueName: judgeQueueName(j.target),
        data: j,
        opts: {
          ...jobOptions(judge, finalSessionJobId(j.sessionId, j.part)),
          // A part that fails for good still lets the scorer run, which fails the evaluation with why.
          ignoreDependencyOnFailure: true,
        },
      },
    ],
  }));
  if (flows.length > 0)
    await withTimeout(
      queues.flows.addBulk(flows),
      queues.enqueueTimeoutMs,
      `Enqueuing final session ${parts.map((j) => `${j.target} part ${j.part}`).join(', ')}`,
    );
  return parts.map((j) => finalSessionJobId(j.sessionId, j.part));
}

/**
 * The "rejudge N times" judgings: each a `repeat-score` parent over a judging job that carries
 * `repeat`, so the scorer records its answer beside the submission, never in it.
 */
export async function enqueueRepeatJudgings(
  queues: QueueSet,
  jobs: readonly JudgingJob[],
  options: EnqueueOptions = {},
): Promise<string[]> {
  const { judge, score } = queues.policies;
  const repeats = jobs.map((j) => judgingJobSchema.parse(j));
  const flows: FlowJob[] = repeats.map((j) => {
    if (!j.repeat) throw new Error(`Judging ${j.judgingId}: a repeat job without its repeat id`);
    const { repeatId } = j.repeat;
    return {
      name: REPEAT_SCORE_JOB_NAME,
      queueName: SCORE_QUEUE,
      data: repeatScoreJobSchema.parse({ repeatId }),
      opts: jobOptions(score, repeatScoreJobId(repeatId)),
      children: [
        {
          name: 'judge',
          queueName: judgeQueueName(j.target),
          data: j,
          opts: {
            ...jobOptions(judge, repeatJobId(repeatId)),
            ignoreDependencyOnFailure: true,
            ...(options.priority ? { priority: options.priority } : {}),
          },
        },
      ],
    };
  });
  if (flows.length > 0)
    await withTimeout(
      queues.flows.addBulk(flows),
      queues.enqueueTimeoutMs,
      `Enqueuing ${flows.length} repeat judgings`,
    );
  return repeats.map((j) => repeatJobId(j.repeat!.repeatId));
}

/** The queues' own Redis connection, for plain commands next to them (cancel flags, heartbeats). */
export async function queueRedis(queues: QueueSet): Promise<Redis> {
  return withTimeout(
    queues.scoreQueue().getBackend().client,
    queues.enqueueTimeoutMs,
    'Connecting to Redis',
  ) as unknown as Promise<Redis>;
}
