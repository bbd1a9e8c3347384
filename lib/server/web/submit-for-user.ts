// Submitting a patch for a signed-in contestant, from the web form or POST /api/submissions: the
// input checked with zod, the contest open, the hourly quota and a burst limit, then the same
// intake and storage as every submission (lib/server/submit/submit-patch.ts).
import { z } from 'zod';
import { MAX_JOB_PATCH_BYTES, slugSchema } from '../../../contracts';
import { EMPTY_PATCH_MESSAGE } from '../../core/intake/empty-patch';
import { db as defaultDb, type Db } from '../db/client';
import { countRecentSubmissions } from '../db/submissions/count-recent-submissions';
import { getContest } from '../db/contest/get-contest';
import { NotFoundError } from '../db/errors';
import { previewPatch, submitPatch, type PreviewPatchResult } from '../submit/submit-patch';
import { consumeRate, SUBMIT_BURST } from '../queue/rate-limit';
import type { QueueSet } from '../queue/producer';
import { webQueues } from './services';

export const submitInputSchema = z.strictObject({
  challenge: slugSchema,
  patch: z
    .string()
    .min(1, EMPTY_PATCH_MESSAGE)
    .max(MAX_JOB_PATCH_BYTES, `the patch is longer than ${MAX_JOB_PATCH_BYTES} characters`),
});
export type SubmitInput = z.infer<typeof submitInputSchema>;

export type SubmitOutcome =
  | { ok: true; submissionId: string; queued: boolean }
  | {
      ok: false;
      /** The API's status follows from it (lib/server/web/api-errors.ts httpStatus). */
      code: 'unknown-challenge' | 'closed' | 'quota' | 'burst' | 'rejected';
      message: string;
      reason?: string;
      file?: string;
      retryAfterSeconds?: number;
    };

const HOUR_MS = 3600_000;

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return m <= 1 ? 'a minute' : `${m} minutes`;
}

export interface SubmitDeps {
  db?: Db;
  queues?: QueueSet;
  now?: Date;
}

export async function submitForUser(
  userId: string,
  input: SubmitInput,
  deps: SubmitDeps = {},
): Promise<SubmitOutcome> {
  const db = deps.db ?? defaultDb();
  const now = deps.now ?? new Date();
  let contest;
  try {
    contest = await getContest(db, input.challenge, now);
  } catch (error) {
    if (error instanceof NotFoundError)
      return {
        ok: false,
        code: 'unknown-challenge',
        message: `There is no challenge "${input.challenge}".`,
      };
    throw error;
  }
  if (!contest.open)
    return {
      ok: false,
      code: 'closed',
      message: `Submissions are closed: ${contest.closedReason}`,
    };

  const quota = contest.settings.submissionsPerHour;
  const recent = await countRecentSubmissions(db, {
    userId,
    challengeId: contest.challengeId,
    since: new Date(now.getTime() - HOUR_MS),
  });
  if (recent.count >= quota) {
    const retry = recent.oldest
      ? Math.max(1, Math.ceil((recent.oldest.getTime() + HOUR_MS - now.getTime()) / 1000))
      : 3600;
    return {
      ok: false,
      code: 'quota',
      message: `You have used your ${quota} submissions for this hour. The next one is possible in ${minutes(retry)}.`,
      retryAfterSeconds: retry,
    };
  }
  const burst = await consumeRate('submit', userId, SUBMIT_BURST);
  if (!burst.allowed)
    return {
      ok: false,
      code: 'burst',
      message: `Too many submissions at once: at most ${SUBMIT_BURST.max} a minute. Try again in ${burst.retryAfter} s.`,
      retryAfterSeconds: burst.retryAfter ?? 60,
    };

  const result = await submitPatch({
    db,
    queues: deps.queues ?? webQueues(),
    userId,
    challengeSlug: input.challenge,
    patchText: input.patch,
    onEnqueueError: (error, id) =>
      console.error(`web: submission ${id} stored, not queued yet (${error.message})`),
  });
  if (!result.ok)
    return {
      ok: false,
      code: 'rejected',
      reason: result.reason,
      message: result.message,
      file: result.file,
    };
  return { ok: true, submissionId: result.submissionId, queued: result.queued };
}

/** The submit form's preview: the files the patch touches, or why intake would reject it. */
export function previewForUser(input: SubmitInput): Promise<PreviewPatchResult> {
  return previewPatch(input.challenge, input.patch);
}
