// Accepting a contestant's patch: checked early (size, format, files), committed to PostgreSQL, then
// queued. The database is the source of truth: a submission Redis did not take is queued later by
// the reconciler, so once stored it is never lost.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isSlug, judgingScoreJobId, MAX_JOB_PATCH_BYTES, type TargetId } from '../../../contracts';
import { CHALLENGES_DIR, loadChallenge, type Challenge } from '../../core/challenge/load-manifest';
import {
  inspectPatch,
  listFiles,
  type ChangedFile,
  type IntakeRejectionReason,
} from '../../core/intake';
import type { Db } from '../db/client';
import { createSubmission } from '../db/submissions/create-submission';
import { NotFoundError } from '../db/errors';
import { supersedeQueuedSubmissions } from '../db/submissions/supersede-queued-submissions';
import { enqueueJudgings, withTimeout, type QueueSet } from '../queue/producer';

export interface SubmitPatchOptions {
  db: Db;
  queues: QueueSet;
  userId: string;
  challengeSlug: string;
  patchText: string;
  /** The challenge whose rules the patch is checked against; challenges/<slug> when omitted. */
  challenge?: Challenge;
  /** Told when Redis did not take the submission (it is stored; the reconciler queues it). */
  onEnqueueError?: (error: Error, submissionId: string) => void;
}

export type SubmitPatchResult =
  | {
      ok: true;
      submissionId: string;
      challenge: { slug: string; version: number };
      judgings: { judgingId: string; target: string; round: number }[];
      /** False when Redis was unreachable: stored all the same, queued by the reconciler. */
      queued: boolean;
    }
  | {
      ok: false;
      reason: IntakeRejectionReason | 'unknown-challenge';
      /** For the contestant: what is wrong, naming the file when one is to blame. */
      message: string;
      file?: string;
    };

interface ChallengeRules {
  challenge: Challenge;
  templateFiles: string[];
  harnessFiles: string[];
}

// The template's file list is read once per folder: intake checks every submission against it.
const rulesCache = new Map<string, Promise<ChallengeRules>>();

async function challengeRules(challenge: Challenge): Promise<ChallengeRules> {
  const key = `${challenge.dir}\0${challenge.manifest.version}`;
  let rules = rulesCache.get(key);
  if (!rules) {
    rules = Promise.all([listFiles(challenge.templateDir), listFiles(challenge.harnessDir)]).then(
      ([templateFiles, harnessFiles]) => ({ challenge, templateFiles, harnessFiles }),
    );
    rulesCache.set(key, rules);
    rules.catch(() => rulesCache.delete(key));
  }
  return rules;
}

// Loaded once per manifest version on disk (a stat tells when the file changed): parsing YAML and
// validating it for every submission would halve the intake rate.
const challengeCache = new Map<string, { mtimeMs: number; challenge: Promise<Challenge> }>();

async function findChallenge(slug: string): Promise<Challenge | null> {
  if (!isSlug(slug)) return null;
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(path.join(CHALLENGES_DIR, slug, 'manifest.yaml'))).mtimeMs;
  } catch {
    return null;
  }
  const cached = challengeCache.get(slug);
  if (cached && cached.mtimeMs === mtimeMs) return cached.challenge;
  // A manifest that exists but does not load is the platform's fault: it throws.
  const challenge = loadChallenge(slug);
  challengeCache.set(slug, { mtimeMs, challenge });
  challenge.catch(() => challengeCache.delete(slug));
  return challenge;
}

function unknownChallenge(slug: string): SubmitPatchResult {
  return { ok: false, reason: 'unknown-challenge', message: `There is no challenge "${slug}".` };
}

type Inspection =
  | { ok: true; files: ChangedFile[] }
  | { ok: false; reason: IntakeRejectionReason; message: string; file?: string };

/**
 * Everything intake can decide without the template on disk, so an obviously bad patch is refused
 * with its reason now instead of minutes later by a runner.
 */
async function inspectForChallenge(challenge: Challenge, patchText: string): Promise<Inspection> {
  const { manifest } = challenge;
  const rules = await challengeRules(challenge);
  const inspected = inspectPatch(patchText, {
    patchBytes: Math.min(manifest.limits.patchBytes, MAX_JOB_PATCH_BYTES),
    editableFiles: manifest.editableFiles,
    allowedNewFiles: manifest.allowedNewFiles,
    protectedPaths: manifest.protectedPaths,
    templateFiles: rules.templateFiles,
    harnessFiles: rules.harnessFiles,
  });
  if (!inspected.ok)
    return {
      ok: false,
      reason: inspected.reason,
      message: inspected.message,
      ...(inspected.file !== undefined ? { file: inspected.file } : {}),
    };
  return { ok: true, files: inspected.validated.files };
}

export type PreviewPatchResult =
  | { ok: true; files: ChangedFile[] }
  | {
      ok: false;
      reason: IntakeRejectionReason | 'unknown-challenge';
      message: string;
      file?: string;
    };

/** What submitting would decide at intake, without storing anything: the files, or why not. */
export async function previewPatch(
  challengeSlug: string,
  patchText: string,
): Promise<PreviewPatchResult> {
  const challenge = await findChallenge(challengeSlug);
  if (!challenge || challenge.manifest.slug !== challengeSlug)
    return {
      ok: false,
      reason: 'unknown-challenge',
      message: `There is no challenge "${challengeSlug}".`,
    };
  return inspectForChallenge(challenge, patchText);
}

export async function submitPatch(options: SubmitPatchOptions): Promise<SubmitPatchResult> {
  const challenge = options.challenge ?? (await findChallenge(options.challengeSlug));
  if (!challenge || challenge.manifest.slug !== options.challengeSlug)
    return unknownChallenge(options.challengeSlug);
  const { manifest } = challenge;
  const inspected = await inspectForChallenge(challenge, options.patchText);
  if (!inspected.ok) return inspected;

  let created;
  try {
    // The version whose rules the patch was just checked against.
    created = await createSubmission(options.db, {
      userId: options.userId,
      challengeSlug: options.challengeSlug,
      version: manifest.version,
      patchText: options.patchText,
    });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // The challenge exists but not the version on disk: the platform's fault (a manifest bumped
    // without running the seed), not an unknown challenge.
    if (await options.db.challenge.findUnique({ where: { slug: options.challengeSlug } }))
      throw new Error(
        `challenge ${options.challengeSlug} v${manifest.version} (the manifest on disk) is not registered in the database: run the seed (npm run db:seed)`,
        { cause: error },
      );
    return unknownChallenge(options.challengeSlug);
  }

  let queued = true;
  try {
    // Built from what was just stored: reading it back would only cost round trips.
    await enqueueJudgings(
      options.queues,
      created.submissionId,
      created.judgings.map((j) => ({
        judgingId: j.judgingId,
        round: j.round,
        submissionId: created.submissionId,
        challenge: created.challenge,
        target: j.target as TargetId,
        patchText: options.patchText,
        ...(created.settings ? { settings: created.settings } : {}),
        benchmark: created.benchmark,
      })),
      { priority: created.queuePriority },
    );
  } catch (error) {
    queued = false;
    options.onEnqueueError?.(error as Error, created.submissionId);
  }
  await supersedeOlder(options, created.submissionId);
  return {
    ok: true,
    submissionId: created.submissionId,
    challenge: created.challenge,
    judgings: created.judgings,
    queued,
  };
}

/**
 * Where the organizer turned it on, the author's older submissions still waiting in the queue are
 * settled as superseded by this one and their jobs withdrawn. A failure here loses nothing: the
 * older submission is then judged as usual (a job a runner already holds is finished, and the
 * scorer ignores a result for a cancelled judging).
 */
async function supersedeOlder(
  options: Pick<SubmitPatchOptions, 'db' | 'queues'>,
  submissionId: string,
): Promise<void> {
  try {
    const superseded = await supersedeQueuedSubmissions(options.db, { submissionId });
    const parents = superseded.flatMap((s) =>
      s.judgings.map((j) => judgingScoreJobId(j.judgingId, j.round)),
    );
    await withTimeout(
      Promise.all(
        parents.map((id) => options.queues.scoreQueue().remove(id, { removeChildren: true })),
      ),
      options.queues.enqueueTimeoutMs,
      `Withdrawing the jobs of submissions superseded by ${submissionId}`,
    );
  } catch {
    // Judged as usual instead (see above).
  }
}
