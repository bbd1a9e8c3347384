// The scorer's handler of a final session part's parent (`final-session-score`): it runs once the
// part's final-session job has answered or failed for good. A valid result is recorded (the last
// part of the last session also ranks the evaluation); a job that failed for good, an answer that
// breaks the contract, or a result that reports the platform's fault (judgeError, after the job's
// retries) fails the evaluation with the message, for the organizer to start again.
import { UnrecoverableError, type Job } from 'bullmq';
import {
  finalSessionJobId,
  finalSessionResultSchema,
  finalSessionScoreJobSchema,
  issuesInline,
} from '../contracts';
import type { Db } from '../lib/server/db/client';
import { InvalidResultError, NotFoundError } from '../lib/server/db/errors';
import { failFinalEvaluation } from '../lib/server/db/final/fail-final-evaluation';
import { recordFinalSessionResult } from '../lib/server/db/final/record-final-session-result';
import type { ScoreLog } from './score-job';

export interface FinalSessionScoreReturn {
  kind: 'final-session';
  evaluationId: string;
  sessionId: string;
  part: number;
  outcome: string;
  evaluationStatus: string | null;
}

/** The child's answer: a value (to validate) or why it failed for good; none: it never ran. */
async function childAnswer(
  job: Pick<Job, 'getChildrenValues' | 'getIgnoredChildrenFailures'>,
  childId: string,
): Promise<{ value: unknown } | { failure: string } | null> {
  const [values, failures] = await Promise.all([
    job.getChildrenValues(),
    job.getIgnoredChildrenFailures(),
  ]);
  const mine = (key: string) => key.endsWith(`:${childId}`);
  const value = Object.entries(values).find(([key]) => mine(key));
  if (value) return { value: value[1] };
  const failure = Object.entries(failures).find(([key]) => mine(key));
  return failure ? { failure: String(failure[1]) } : null;
}

export async function scoreFinalSession(
  db: Db,
  job: Pick<Job, 'data' | 'getChildrenValues' | 'getIgnoredChildrenFailures'>,
  log: ScoreLog = () => {},
): Promise<FinalSessionScoreReturn> {
  const payload = finalSessionScoreJobSchema.safeParse(job.data);
  if (!payload.success)
    throw new UnrecoverableError(`invalid final session score payload: ${payload.error.message}`);
  const { evaluationId, sessionId, part } = payload.data;
  const done = (outcome: string, evaluationStatus: string | null): FinalSessionScoreReturn => ({
    kind: 'final-session',
    evaluationId,
    sessionId,
    part,
    outcome,
    evaluationStatus,
  });
  const fail = async (why: string) => {
    log(`session ${sessionId} part ${part}: ${why}`);
    const failed = await failFinalEvaluation(db, {
      evaluationId,
      sessionId,
      message: `Session part ${part} could not be timed: ${why}`,
    });
    return done(failed ? 'failed' : 'ignored', failed ? 'FAILED' : null);
  };

  const answer = await childAnswer(job, finalSessionJobId(sessionId, part));
  if (!answer) return fail('its job ended without an answer');
  if ('failure' in answer) return fail(answer.failure.split('\n')[0]?.slice(0, 1000) ?? '');
  // The consumer validates again: a runner of another version, or a bug, must not write garbage.
  const parsed = finalSessionResultSchema.safeParse(answer.value);
  if (!parsed.success)
    return fail(`the runner's answer breaks the contract: ${issuesInline(parsed.error, 3)}`);
  // The runner retries the platform's faults itself (the job's attempts); one that reaches the
  // scorer is the last attempt's.
  if (parsed.data.judgeError !== null) return fail(parsed.data.judgeError);
  try {
    const recorded = await recordFinalSessionResult(db, {
      evaluationId,
      sessionId,
      part,
      result: parsed.data,
    });
    log(
      `session ${sessionId} part ${part}: ${recorded.outcome}, session ${recorded.sessionStatus}, evaluation ${recorded.evaluationStatus}`,
    );
    return done(recorded.outcome, recorded.evaluationStatus);
  } catch (error) {
    if (error instanceof NotFoundError) {
      log(`session ${sessionId}: ${error.message}, its answer is dropped`);
      return done('not-found', null);
    }
    if (error instanceof InvalidResultError) return fail(`invalid result: ${error.message}`);
    throw error;
  }
}
