// The queue contract: what a judging job carries to a runner, what comes back, and what runners
// publish about themselves. Producers (app, reconciler) and consumers (runner, scorer) both parse
// these, so a malformed message fails at once instead of travelling.
import { z } from 'zod';
import { hostReportSchema } from './host-report';
import { judgingResultSchema, progressEventSchema } from './judging';
import { targetIdSchema, type TargetId } from './manifest';
import { slugSchema } from './slug';

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
/** The score parent of a whole submission's flow (how submissions were queued before per-target recording). */
export function scoreJobId(submissionId: string, round: number): string {
  return `score-${submissionId}-r${round}`;
}
/** One of the "rejudge N times" judgings (JudgingRepeat id). */
export function repeatJobId(repeatId: string): string {
  return `judging-repeat-${repeatId}`;
}
/** The score parent of one judging: it runs as soon as that target's judging is done. */
export function judgingScoreJobId(judgingId: string, round: number): string {
  return `score-judging-${judgingId}-r${round}`;
}

/** Set by the scorer when a judging can no longer count; the runner stops it (runner/service). */
export function judgingCancelKey(prefix: string, judgingId: string, round: number): string {
  return `${prefix}:cancel:${judgingJobId(judgingId, round)}`;
}
/** How long a cancel flag is kept: longer than any judging waits in a queue. */
export const JUDGING_CANCEL_TTL_SECONDS = 7 * 24 * 3600;

/** A cancelled judging's message, shown where its verdict would be. */
export function notJudgedMessage(failedTarget: string): string {
  return `not judged: the submission failed on ${failedTarget}`;
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
  /**
   * False: the profile stage leaves out cachegrind (an -O3 rebuild of both sides and a run of each
   * under valgrind, most of an accepted judging's profile stage), and the result says so.
   */
  cachegrind: z.boolean().optional(),
});
export type JudgingJobSettings = z.infer<typeof judgingJobSettingsSchema>;

/**
 * The benchmark input a contest job is timed on: the contest's definition as stored in the
 * database (lib/core/challenge/benchmark-definition.ts), whichever process made the job: every result on one
 * leaderboard is timed on this one definition, whichever runner takes the job. A runner never
 * substitutes its own size for it.
 */
export const jobBenchmarkSchema = z.strictObject({
  sizeBytes: z.number().int().min(MIN_BENCHMARK_BYTES).max(MAX_BENCHMARK_BYTES),
  /**
   * The hidden input's seed. Absent only when the platform knows none (no organizer setting, no
   * seed variable where the web app and scorer run): the runner's variable the manifest names.
   */
  seed: z.string().min(8).max(4096).optional(),
  /**
   * Smaller than the manifest's for quick development (npm start's PERFJUDGE_INPUT_SIZE): every
   * result timed on it is labelled development mode.
   */
  development: z.boolean(),
  /** The definition's run-policy override: at most this many timed pairs (development). */
  maxPairs: z.number().int().min(1).max(1000).optional(),
  /** The input generator version the definition was written for (the challenge code's). */
  generatorVersion: z.number().int().positive().optional(),
  /** Which revision of the contest's definition this is (0: never written, the manifest's). */
  revision: z.number().int().nonnegative().optional(),
});
export type JobBenchmark = z.infer<typeof jobBenchmarkSchema>;

export const judgingJobSchema = z.strictObject({
  judgingId: z.string().min(1).max(64),
  /** The rejudge round: a result from an older round is ignored by the scorer. */
  round: z.number().int().nonnegative(),
  submissionId: z.string().min(1).max(64),
  challenge: z.strictObject({
    slug: slugSchema,
    version: z.number().int().positive(),
  }),
  target: targetIdSchema,
  patchText: z.string().max(MAX_JOB_PATCH_BYTES),
  settings: judgingJobSettingsSchema.optional(),
  /** Always set by this platform's producer; absent in jobs of older producers. */
  benchmark: jobBenchmarkSchema.optional(),
  /**
   * One of an organizer's "rejudge N times" judgings: judged like any other, recorded beside the
   * submission (JudgingRepeat), never changing its verdict, score or leaderboard row.
   */
  repeat: z.strictObject({ repeatId: z.string().min(1).max(64) }).optional(),
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

/**
 * The score-queue parent of one "rejudge N times" judging (BullMQ job name): the scorer records
 * its child's answer in the JudgingRepeat row only, never in the submission.
 */
export const REPEAT_SCORE_JOB_NAME = 'repeat-score';
export function repeatScoreJobId(repeatId: string): string {
  return `score-repeat-${repeatId}`;
}
export const repeatScoreJobSchema = z.strictObject({
  repeatId: z.string().min(1).max(64),
});

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
  /** True when the runner was started without one (`--no-host-report`): none will come. */
  hostReportOff: z.boolean().optional(),
});
export type RunnerHeartbeat = z.infer<typeof runnerHeartbeatSchema>;

/**
 * What a supervisor (`npm start`, or a scorer about itself) publishes about the platform's
 * processes (a Redis key with a TTL), so /api/health and the organizer console can say that a
 * runner or the scorer is down or restarting, and why.
 */
const SERVICE_KINDS = ['web', 'scorer', 'runner', 'store'] as const;
const SERVICE_STATES = ['running', 'starting', 'restarting', 'down'] as const;
export const serviceStatusSchema = z.strictObject({
  /** As npm start prefixes its output: "scorer", "runner linux-intel", "web", "redis". */
  name: z.string().min(1).max(80),
  kind: z.enum(SERVICE_KINDS),
  state: z.enum(SERVICE_STATES),
  /** Restarts since the supervisor started it. */
  restarts: z.number().int().nonnegative(),
  /** Why it last stopped, e.g. "killed by SIGKILL" (null: it never did). */
  lastExit: z.strictObject({ at: z.iso.datetime(), reason: z.string().max(500) }).nullable(),
  /** When the next start is due (while restarting). */
  nextStartAt: z.iso.datetime().nullable(),
  since: z.iso.datetime(),
});
export type ServiceStatus = z.infer<typeof serviceStatusSchema>;

export const supervisorReportSchema = z.strictObject({
  /** Who publishes it: "npm start on <host> (pid N)" or "scorer <name> (pid N)". */
  supervisor: z.string().min(1).max(200),
  updatedAt: z.iso.datetime(),
  services: z.array(serviceStatusSchema).max(64),
});
export type SupervisorReport = z.infer<typeof supervisorReportSchema>;
