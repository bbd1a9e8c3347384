// The queue contract: what a judging job carries to a runner, what comes back, and what runners
// publish about themselves. Producers (app, reconciler) and consumers (runner, scorer) both parse
// these, so a malformed message fails at once instead of travelling.
import { z } from 'zod';
import { hostReportSchema } from './host-report';
import { judgingResultSchema, progressEventSchema } from './judging';
import { targetIdSchema, type TargetId } from './manifest';

/** Largest patch a job may carry (manifests may allow less, never more). */
export const MAX_JOB_PATCH_BYTES = 4 * 1024 * 1024;

/** BullMQ queue names (no ':' allowed): one per target, and one for scoring. */
export const SCORE_QUEUE = 'score';
export function judgeQueueName(target: TargetId, prefix = ''): string {
  return `${prefix}judge-${target}`;
}

/** Job ids come from database ids, so enqueuing the same judging round twice does nothing. */
export function judgingJobId(judgingId: string, round: number): string {
  return `judging-${judgingId}-r${round}`;
}
export function scoreJobId(submissionId: string, round: number): string {
  return `score-${submissionId}-r${round}`;
}

/** Largest benchmark input an organizer may set (the Challenge column is a 32-bit integer). */
export const MAX_BENCHMARK_BYTES = 2 ** 31 - 1;
/** Smallest: below this the timed runs measure process start-up, not the solution. */
export const MIN_BENCHMARK_BYTES = 1024;

/**
 * The organizer's contest settings that change how a patch is judged. Runners never read the
 * database, so they travel in the job; each one absent means "as the manifest (or the runner's
 * secret) says", which is also how jobs enqueued before settings existed are judged.
 */
export const judgingJobSettingsSchema = z.strictObject({
  /** Relative half-width of the speedup interval the measure stage aims for (runPolicy.precision). */
  precision: z.number().positive().max(0.5).optional(),
  benchmarkBytes: z.number().int().min(MIN_BENCHMARK_BYTES).max(MAX_BENCHMARK_BYTES).optional(),
  /** The hidden benchmark input's seed, instead of the one in the runner's environment. */
  benchmarkSeed: z.string().min(8).max(4096).optional(),
});
export type JudgingJobSettings = z.infer<typeof judgingJobSettingsSchema>;

export const judgingJobSchema = z.strictObject({
  judgingId: z.string().min(1).max(64),
  /** The rejudge round: a result from an older round is ignored by the scorer. */
  round: z.number().int().nonnegative(),
  submissionId: z.string().min(1).max(64),
  challenge: z.strictObject({
    slug: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
    version: z.number().int().positive(),
  }),
  target: targetIdSchema,
  patchText: z.string().max(MAX_JOB_PATCH_BYTES),
  settings: judgingJobSettingsSchema.optional(),
});
export type JudgingJob = z.infer<typeof judgingJobSchema>;

/** A runner's answer: the typed result of the judge, tagged with the job it answers. */
export const judgingJobResultSchema = z.strictObject({
  judgingId: z.string().min(1),
  round: z.number().int().nonnegative(),
  runnerId: z.string().min(1),
  result: judgingResultSchema,
});
export type JudgingJobResult = z.infer<typeof judgingJobResultSchema>;

export const scoreJobSchema = z.strictObject({
  submissionId: z.string().min(1).max(64),
  round: z.number().int().nonnegative(),
});
export type ScoreJob = z.infer<typeof scoreJobSchema>;

/** Live progress a runner publishes for the web app (BullMQ job progress). */
export const judgingProgressSchema = progressEventSchema.extend({
  judgingId: z.string(),
  round: z.number().int().nonnegative(),
});
export type JudgingProgress = z.infer<typeof judgingProgressSchema>;

/** What a runner says about itself every few seconds (a Redis key with a TTL). */
export const runnerHeartbeatSchema = z.strictObject({
  runnerId: z.string().min(1),
  target: targetIdSchema,
  hostname: z.string(),
  cpuModel: z.string(),
  cpuVendor: z.string(),
  devMode: z.boolean(),
  emulated: z.boolean(),
  startedAt: z.iso.datetime(),
  seenAt: z.iso.datetime(),
  currentJob: z
    .strictObject({ judgingId: z.string(), round: z.number().int(), since: z.iso.datetime() })
    .nullable(),
  /** The host report measured at start-up (noise, timing and memory checks); absent until done. */
  hostReport: hostReportSchema.optional(),
});
export type RunnerHeartbeat = z.infer<typeof runnerHeartbeatSchema>;
