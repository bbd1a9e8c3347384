// The final evaluation's contract (docs/organizers.md, "Provisional and final rankings"): what a
// final session job carries to a runner, what each round it times looks like, what it returns,
// and (contracts/judging.ts plausibilitySchema) the plausibility figure every entrant gets.
//
// A final evaluation has one session per target. A session is one job on that target's judge queue
// (or, when the organizer spreads it across hosts, one job per part, each timing its own share of
// the rounds). A round times the baseline and every entrant once each, in an order rotated round
// by round, on one host: each round's ratios use that round's own baseline, so rounds from two
// hosts (a resumed session, or spread parts) combine without mixing hosts within a ratio.
import { z } from 'zod';
import { hostFingerprintSchema, plausibilitySchema, runEvidenceSchema } from './judging';
import { jobBenchmarkSchema, MAX_JOB_PATCH_BYTES } from './jobs';
import { targetIdSchema } from './manifest';
import { slugSchema } from './slug';

/** BullMQ job name of a final session on a judge queue (a judging's is 'judge'). */
export const FINAL_SESSION_JOB_NAME = 'final-session';

/** The entrant id the baseline has in rounds (entrants' ids are database ids, never this). */
export const BASELINE_ENTRANT = 'baseline';

/** Most finalists one evaluation takes (every one is built and timed in every round). */
export const MAX_FINALISTS = 200;
/**
 * Rounds an organizer may ask for: at least enough for the pairwise test to separate two finalists
 * at a 5% error rate (the exact signed-rank test's smallest two-sided p-value over n rounds is
 * 2/2^n: 0.031 at 6 rounds, 0.0625 at 5). More finalists need more (lib/core/ranking warns).
 */
export const MIN_FINAL_ROUNDS = 6;
export const MAX_FINAL_ROUNDS = 200;
export const DEFAULT_FINAL_ROUNDS = 20;
/** Family-wise error rate of the final ranking's pairwise comparisons (Holm-corrected). */
export const DEFAULT_FINAL_ERROR_RATE = 0.05;

export function finalSessionJobId(sessionId: string, part: number): string {
  return `final-${sessionId}-p${part}`;
}

/** One run of one entrant (or the baseline) in a round. */
export const finalRunSchema = z.strictObject({
  /** BASELINE_ENTRANT or a finalist's entrant id. */
  entrant: z.string().min(1).max(64),
  wallMs: z.number().nonnegative(),
  /** user + sys of the program's tree. */
  cpuMs: z.number().nonnegative(),
  /** Output complete and equal to the reference's on the session's input. */
  correct: z.boolean(),
  /** Why it failed when not correct (wrong output, exit code, signal, limit). */
  failure: z.string().max(500).nullable(),
  evidence: runEvidenceSchema.nullable(),
});
export type FinalRun = z.infer<typeof finalRunSchema>;

/** One finished round: every entrant still in the session and the baseline, once each. */
export const finalRoundSchema = z.strictObject({
  /** 0-based round number of the session (a part times only its own rounds). */
  round: z.number().int().nonnegative(),
  /** The order the runs ran in (rotated by the round number), baseline included. */
  order: z.array(z.string().min(1).max(64)),
  runs: z.array(finalRunSchema),
  /** Times this round was started over because one of its runs was disturbed. */
  discardedAttempts: z.number().int().nonnegative(),
  /** Which host timed it (hash of its fingerprint; full fingerprints are in the part's result). */
  hostFingerprintHash: z.string().min(1).max(128),
  finishedAt: z.iso.datetime(),
});
export type FinalRound = z.infer<typeof finalRoundSchema>;

const finalEntrantJobSchema = z.strictObject({
  entrantId: z.string().min(1).max(64),
  patchText: z.string().max(MAX_JOB_PATCH_BYTES),
});

export const finalSessionJobSchema = z.strictObject({
  evaluationId: z.string().min(1).max(64),
  sessionId: z.string().min(1).max(64),
  /** 0 unless the session is spread across hosts (then 0 … parts-1). */
  part: z.number().int().nonnegative(),
  challenge: z.strictObject({ slug: slugSchema, version: z.number().int().positive() }),
  target: targetIdSchema,
  /** The session's one benchmark input: a fresh secret seed unless the organizer kept the provisional one. */
  benchmark: jobBenchmarkSchema,
  entrants: z.array(finalEntrantJobSchema).min(1).max(MAX_FINALISTS),
  /** The round numbers this job times. */
  rounds: z.array(z.number().int().nonnegative()).min(1).max(MAX_FINAL_ROUNDS),
  /**
   * Rounds already finished (the checkpoint): a runner that takes the job over after another died
   * continues from here. Kept up to date by the runner (BullMQ job data) after every round.
   */
  done: z.array(finalRoundSchema).default([]),
  /** Times a round may be started over because a run was disturbed, over the whole job. */
  maxDiscardedRounds: z.number().int().nonnegative().max(10_000),
});
export type FinalSessionJob = z.infer<typeof finalSessionJobSchema>;

/** Why an entrant left a session: it did not build, or a run failed or printed a wrong output. */
const finalExclusionSchema = z.strictObject({
  entrantId: z.string().min(1).max(64),
  reason: z.string().max(1000),
});

export const finalSessionResultSchema = z.strictObject({
  sessionId: z.string().min(1).max(64),
  part: z.number().int().nonnegative(),
  runnerId: z.string().min(1).max(200),
  host: hostFingerprintSchema,
  /** Every round this job timed, the checkpoint's included. */
  rounds: z.array(finalRoundSchema),
  excluded: z.array(finalExclusionSchema),
  /** Entrant id → plausibility of its fastest run (null: the host's bandwidth is unknown). */
  plausibility: z.record(z.string(), plausibilitySchema.nullable()),
  inputBytes: z.number().int().nonnegative(),
  inputSha256: z.string(),
  warnings: z.array(z.string().max(2000)).max(200),
  /** Building every entrant and the baseline, then timing the rounds; the runs' own wall time summed. */
  buildMs: z.number().nonnegative(),
  timingMs: z.number().nonnegative(),
  runsWallMs: z.number().nonnegative(),
  /** Set when the host could not time the session (too busy, baseline failed): the platform's fault. */
  judgeError: z.string().max(5000).nullable(),
  /** Development mode or emulated: labelled like a judging's result. */
  devMode: z.boolean(),
  emulated: z.boolean(),
});
export type FinalSessionResult = z.infer<typeof finalSessionResultSchema>;

/** Live progress of a final session part (BullMQ job progress), for the console and the banner. */
export const finalSessionProgressSchema = z.strictObject({
  sessionId: z.string(),
  part: z.number().int().nonnegative(),
  stage: z.enum(['waiting', 'build', 'rounds', 'done']),
  roundsDone: z.number().int().nonnegative(),
  roundsPlanned: z.number().int().nonnegative(),
  /** Estimated time left from the rounds' pace so far; null before the first round. */
  etaMs: z.number().nonnegative().nullable(),
  message: z.string().max(500),
  /** The round just finished, so the scorer records it in the database as the session goes. */
  round: finalRoundSchema.optional(),
});
export type FinalSessionProgress = z.infer<typeof finalSessionProgressSchema>;

/**
 * The score-queue parent of one session part (BullMQ job name on the `score` queue): it runs once
 * its final-session child has answered or failed for good, and the scorer records that part.
 */
export const FINAL_SESSION_SCORE_JOB_NAME = 'final-session-score';

export function finalSessionScoreJobId(sessionId: string, part: number): string {
  return `score-final-${sessionId}-p${part}`;
}

export const finalSessionScoreJobSchema = z.strictObject({
  evaluationId: z.string().min(1).max(64),
  sessionId: z.string().min(1).max(64),
  part: z.number().int().nonnegative(),
});

/**
 * Set when the organizer cancels the evaluation (like a judging's cancel flag): a runner holding
 * the part may stop; a result arriving anyway is ignored by the scorer.
 */
export function finalSessionCancelKey(prefix: string, sessionId: string, part: number): string {
  return `${prefix}:cancel:${finalSessionJobId(sessionId, part)}`;
}
