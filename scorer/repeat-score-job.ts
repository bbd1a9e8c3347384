// The scorer's handler of a "rejudge N times" judging's parent (`repeat-score`): its child's answer
// goes into the JudgingRepeat row only; a child that failed for good, or an answer that breaks the
// contract, is recorded as JUDGE_ERROR there. The submission is never touched.
import { UnrecoverableError, type Job } from 'bullmq';
import {
  issuesInline,
  judgingJobResultSchema,
  judgingJobSchema,
  repeatJobId,
  repeatScoreJobSchema,
  type JudgingResult,
} from '../contracts';
import type { Db } from '../lib/server/db/client';
import { InvalidResultError, NotFoundError } from '../lib/server/db/errors';
import { getRepeatJudgingJob } from '../lib/server/db/judgings/get-repeat-judging-job';
import { recordRepeatResult } from '../lib/server/db/judgings/record-repeat-result';
import { judgeErrorResult } from './judge-error-result';
import type { ScoreLog } from './score-job';

export interface RepeatScoreReturn {
  kind: 'repeat';
  repeatId: string;
  outcome: string;
  verdict: string | null;
}

export async function scoreRepeat(
  db: Db,
  job: Pick<Job, 'data' | 'getChildrenValues' | 'getIgnoredChildrenFailures'>,
  log: ScoreLog = () => {},
): Promise<RepeatScoreReturn> {
  const payload = repeatScoreJobSchema.safeParse(job.data);
  if (!payload.success)
    throw new UnrecoverableError(`invalid repeat score payload: ${payload.error.message}`);
  const { repeatId } = payload.data;
  const childId = repeatJobId(repeatId);
  const [values, failures] = await Promise.all([
    job.getChildrenValues(),
    job.getIgnoredChildrenFailures(),
  ]);
  const value = Object.entries(values).find(([key]) => key.endsWith(`:${childId}`))?.[1];
  const failure = Object.entries(failures).find(([key]) => key.endsWith(`:${childId}`))?.[1];

  const judgeError = async (reason: string): Promise<JudgingResult | null> => {
    const stored = await getRepeatJudgingJob(db, repeatId);
    return stored ? judgeErrorResult(judgingJobSchema.parse(stored), reason) : null;
  };
  let result: JudgingResult | null;
  if (value !== undefined) {
    const parsed = judgingJobResultSchema.safeParse(value);
    result = parsed.success
      ? parsed.data.result
      : await judgeError(
          `the runner's answer breaks the contract: ${issuesInline(parsed.error, 3)}`,
        );
  } else result = await judgeError(failure !== undefined ? String(failure) : 'no answer');
  if (!result) {
    log(`repeat ${repeatId} no longer exists: its answer is dropped`);
    return { kind: 'repeat', repeatId, outcome: 'not-found', verdict: null };
  }
  try {
    const outcome = await recordRepeatResult(db, { repeatId, result });
    log(`repeat ${repeatId}: ${outcome} ${result.verdict}`);
    return { kind: 'repeat', repeatId, outcome, verdict: result.verdict };
  } catch (error) {
    if (error instanceof NotFoundError)
      return { kind: 'repeat', repeatId, outcome: 'not-found', verdict: null };
    if (!(error instanceof InvalidResultError)) throw error;
    const replacement = await judgeError(`invalid result: ${error.message}`);
    if (!replacement) return { kind: 'repeat', repeatId, outcome: 'not-found', verdict: null };
    const outcome = await recordRepeatResult(db, { repeatId, result: replacement });
    return { kind: 'repeat', repeatId, outcome, verdict: replacement.verdict };
  }
}
