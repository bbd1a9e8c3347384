// The JUDGE_ERROR result the scorer records for a judging whose runner never answered with one (its
// job failed for good, or its answer broke the contract), so the submission settles instead of hanging.
import {
  judgingResultSchema,
  newJudgingResult,
  UNKNOWN_HOST,
  type JudgingJob,
  type JudgingResult,
} from '../contracts';

/** Long enough to say what failed; runner errors can carry whole logs. */
const MAX_REASON_CHARS = 500;

export function judgeErrorResult(job: JudgingJob, reason: string, now = new Date()): JudgingResult {
  const detail = reason.split('\n')[0]?.slice(0, MAX_REASON_CHARS) ?? '';
  return judgingResultSchema.parse(
    newJudgingResult({
      judgingId: job.judgingId,
      challenge: job.challenge,
      target: job.target,
      host: UNKNOWN_HOST,
      startedAt: now,
      message:
        'The judge could not finish this judging. This is a fault of the platform, not of your patch; an organizer can rejudge it.',
      // For organizers: why the scorer had to write this result itself.
      warnings: [`No result from a runner: ${detail}`],
    }),
  );
}
