// The scorer's job handler: a judging's flow parent runs as soon as its judging child has answered or
// finally failed (a submission's parent from before per-target recording, once all of them have);
// it validates each answer and records it (the database layer settles the score), then stops the
// judgings a contestant fault made pointless.
import { UnrecoverableError, type Job } from 'bullmq';
import {
  issuesInline,
  judgingJobResultSchema,
  judgingJobSchema,
  scoreJobSchema,
  type JudgingResult,
} from '../contracts';
import type { Db } from '../lib/server/db/client';
import { InvalidResultError, NotFoundError } from '../lib/server/db/errors';
import { getJudgingJob } from '../lib/server/db/judgings/get-judging-job';
import { recordHostCalibration } from '../lib/server/db/judgings/record-host-calibration';
import { listCancelledJudgings } from '../lib/server/db/judgings/list-cancelled-judgings';
import {
  recordJudgingResult,
  type CancelledJudging,
  type RecordJudgingResultOutcome,
} from '../lib/server/db/judgings/record-judging-result';
import { benchmarkMismatch } from '../lib/core/challenge/benchmark-definition';
import { judgeErrorResult } from './judge-error-result';

export type ScoreLog = (line: string) => void;

/** Tells the runners of these judgings to stop (a flag in Redis); must be safe to repeat. */
export type CancelJudgings = (
  judgings: (CancelledJudging & { message: string })[],
) => Promise<void>;

/** What a child answered, keyed by its judging and round (taken from the job id, not the payload). */
type ChildAnswer =
  | { judgingId: string; round: number; kind: 'result'; result: JudgingResult }
  | { judgingId: string; round: number; kind: 'failure'; reason: string };

export interface ScoreJobReturn {
  submissionId: string;
  round: number;
  judgings: { judgingId: string; round: number; outcome: string }[];
  status: string | null;
  verdict: string | null;
  score: number | null;
}

const CHILD_KEY = /:judging-(.+)-r(\d+)$/;

function parseChildKey(key: string): { judgingId: string; round: number } | null {
  const m = CHILD_KEY.exec(key);
  return m ? { judgingId: m[1] as string, round: Number(m[2]) } : null;
}

function childAnswers(
  values: Record<string, unknown>,
  failures: Record<string, string>,
  log: ScoreLog,
): ChildAnswer[] {
  const answers = new Map<string, ChildAnswer>();
  for (const [key, reason] of Object.entries(failures)) {
    const id = parseChildKey(key);
    if (!id) log(`ignoring failed child ${key}: not a judging job`);
    else answers.set(key, { ...id, kind: 'failure', reason: String(reason) });
  }
  for (const [key, value] of Object.entries(values)) {
    const id = parseChildKey(key);
    if (!id) {
      log(`ignoring child ${key}: not a judging job`);
      continue;
    }
    // The consumer validates again: a runner of another version, or a bug, must not write garbage.
    const parsed = judgingJobResultSchema.safeParse(value);
    if (!parsed.success)
      answers.set(key, {
        ...id,
        kind: 'failure',
        reason: `the runner's answer breaks the contract: ${issuesInline(parsed.error, 3)}`,
      });
    else if (parsed.data.judgingId !== id.judgingId || parsed.data.round !== id.round)
      answers.set(key, {
        ...id,
        kind: 'failure',
        reason: `the runner answered for judging ${parsed.data.judgingId} round ${parsed.data.round}`,
      });
    else answers.set(key, { ...id, kind: 'result', result: parsed.data.result });
  }
  return [...answers.values()].sort((a, b) => a.judgingId.localeCompare(b.judgingId));
}

async function recordAnswer(
  db: Db,
  answer: ChildAnswer,
  log: ScoreLog,
): Promise<RecordJudgingResultOutcome | 'not-found'> {
  const { judgingId, round } = answer;
  const judgeError = async (reason: string) => {
    const job = await getJudgingJob(db, judgingId);
    if (!job) return null;
    // The stored job with the round it was enqueued for: recordJudgingResult checks the round.
    return judgeErrorResult(judgingJobSchema.parse({ ...job, round }), reason);
  };
  let result = answer.kind === 'result' ? answer.result : await judgeError(answer.reason);
  if (!result) return 'not-found';
  const refused = await refuseOtherBenchmark(db, judgingId, round, result);
  if (refused) {
    log(`judging ${judgingId} r${round}: not ranked, ${refused.warnings[0]}`);
    result = refused;
  }
  if (answer.kind === 'failure')
    log(`judging ${judgingId} r${round}: no result (${answer.reason})`);
  try {
    const outcome = await recordJudgingResult(db, { judgingId, round, result });
    await recordCalibration(db, result, log);
    return outcome;
  } catch (error) {
    if (error instanceof NotFoundError) return 'not-found';
    if (!(error instanceof InvalidResultError)) throw error;
    // A result for another judging or without its speedup: the platform's fault, never the contestant's.
    log(`judging ${judgingId} r${round}: invalid result (${error.message})`);
    const replacement = await judgeError(`invalid result: ${error.message}`);
    if (!replacement) return 'not-found';
    return recordJudgingResult(db, { judgingId, round, result: replacement });
  }
}

/**
 * One benchmark definition per leaderboard: a result timed on another input than the contest's
 * current one (the organizer changed the size or seed while it was queued, or a runner of another
 * version) is never ranked. It becomes a JUDGE_ERROR saying so: the platform's fault, which an
 * organizer's rejudge measures again on the current input.
 */
async function refuseOtherBenchmark(
  db: Db,
  judgingId: string,
  round: number,
  result: JudgingResult,
): Promise<JudgingResult | null> {
  if (!result.stages.measure) return null; // nothing was timed
  const job = await getJudgingJob(db, judgingId);
  if (!job) return null;
  const why = benchmarkMismatch(result.benchmark, job.benchmark);
  if (!why) return null;
  const refused = judgeErrorResult(judgingJobSchema.parse({ ...job, round }), why);
  return {
    ...refused,
    message:
      'This judging was timed on another benchmark input than the contest uses now, so it is not ' +
      'ranked. This is not a fault of your patch; an organizer can rejudge it on the current input.',
    warnings: [`Not ranked: ${why}`],
    host: result.host,
    ...(result.benchmark ? { benchmark: result.benchmark } : {}),
  };
}

/**
 * Every judging times the baseline on its host, so each one refreshes that host's calibration for
 * the challenge version and target: a host whose fingerprint changed (new CPU, kernel, compiler)
 * gets a row of its own, and organizers see each host's baseline next to the others.
 */
async function recordCalibration(db: Db, result: JudgingResult, log: ScoreLog): Promise<void> {
  const baseline = result.stages.measure?.baseline;
  if (!baseline || baseline.n === 0) return;
  try {
    await recordHostCalibration(db, {
      challengeSlug: result.challenge.slug,
      version: result.challenge.version,
      target: result.target,
      host: result.host,
      baselineMedianMs: baseline.medianMs,
      runs: baseline.n,
      measuredAt: new Date(result.finishedAt),
    });
  } catch (error) {
    // A calibration is a by-product: never fail the scoring for it.
    log(`calibration not recorded: ${(error as Error).message}`);
  }
}

/**
 * Records every child's answer, each in its own transaction. Safe to run again for the same job
 * (a retry after a database outage, a second delivery after a scorer crash): results already stored
 * come back as 'duplicate' and change nothing.
 */
export async function scoreSubmission(
  db: Db,
  job: Pick<Job, 'data' | 'getChildrenValues' | 'getIgnoredChildrenFailures'>,
  log: ScoreLog = () => {},
  cancelJudgings?: CancelJudgings,
): Promise<ScoreJobReturn> {
  const payload = scoreJobSchema.safeParse(job.data);
  // A malformed payload will be as malformed on every retry.
  if (!payload.success)
    throw new UnrecoverableError(`invalid score job payload: ${payload.error.message}`);
  const { submissionId, round } = payload.data;
  const [values, failures] = await Promise.all([
    job.getChildrenValues(),
    job.getIgnoredChildrenFailures(),
  ]);
  const answers = childAnswers(values, failures, log);
  log(`recording ${answers.length} answers`);

  const judgings: ScoreJobReturn['judgings'] = [];
  let last: RecordJudgingResultOutcome | undefined;
  for (const answer of answers) {
    const outcome = await recordAnswer(db, answer, log);
    if (outcome === 'not-found') {
      log(`judging ${answer.judgingId} no longer exists: its answer is dropped`);
      judgings.push({ judgingId: answer.judgingId, round: answer.round, outcome: 'not-found' });
      continue;
    }
    last = outcome;
    judgings.push({ judgingId: answer.judgingId, round: answer.round, outcome: outcome.outcome });
  }
  // Every cancelled judging of the submission, not only those this job cancelled: a retry after
  // Redis failed mid-way raises the flags it missed.
  if (cancelJudgings && last?.submission.status === 'DONE') {
    const cancelled = (await listCancelledJudgings(db, submissionId)).filter(
      (j) => j.round === round,
    );
    if (cancelled.length) {
      await cancelJudgings(cancelled);
      log(`cancelled ${cancelled.map((j) => `${j.target} (${j.judgingId})`).join(', ')}`);
    }
  }
  return {
    submissionId,
    round,
    judgings,
    status: last?.submission.status ?? null,
    verdict: last?.submission.verdict ?? null,
    score: last?.submission.score ?? null,
  };
}
