// The JUDGE_ERROR result the scorer records for a judging whose runner never answered with one (its
// job failed for good, or its answer broke the contract), so the submission settles instead of hanging.
import {
  emptyStages,
  judgingResultSchema,
  type JudgingJob,
  type JudgingResult,
} from '../contracts';

/** Long enough to say what failed; runner errors can carry whole logs. */
const MAX_REASON_CHARS = 500;

export function judgeErrorResult(job: JudgingJob, reason: string, now = new Date()): JudgingResult {
  const at = now.toISOString();
  const detail = reason.split('\n')[0]?.slice(0, MAX_REASON_CHARS) ?? '';
  return judgingResultSchema.parse({
    schemaVersion: 1,
    judgingId: job.judgingId,
    challenge: job.challenge,
    target: job.target,
    verdict: 'JUDGE_ERROR',
    message:
      'The judge could not finish this judging. This is a fault of the platform, not of your patch; an organizer can rejudge it.',
    stages: emptyStages(),
    // For organizers: why the scorer had to write this result itself.
    warnings: [`No result from a runner: ${detail}`],
    // No runner reported a host: these placeholders say so rather than guess.
    host: {
      hostname: 'unknown',
      os: 'unknown',
      kernel: 'unknown',
      cpuModel: 'unknown',
      cpuVendor: 'unknown',
      cores: 1,
      compiler: 'unknown',
      governor: null,
      turbo: null,
      sandbox: 'none',
      devMode: false,
      emulated: false,
    },
    startedAt: at,
    finishedAt: at,
    durationMs: 0,
    stageDurationsMs: {},
  });
}
