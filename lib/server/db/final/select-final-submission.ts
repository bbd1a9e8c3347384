// A contestant marks which of their accepted submissions counts in the final evaluation (until the
// deadline); without a selection their best provisional score counts (lib/server/db/final/list-finalists.ts).
import { checkFinalSelectionOpen } from './check-final-selection-open';
import type { Db } from '../client';
import { NotFoundError, RefusedError } from '../errors';

export interface SelectFinalSubmissionOptions {
  userId: string;
  submissionId: string;
  /** When given (the API's URL), a submission of another challenge is refused. */
  challengeSlug?: string;
  now?: Date;
}

/**
 * Refuses a submission that is not the user's (NotFoundError: another's is never confirmed to
 * exist), not accepted, disqualified, or when the selection is closed (RefusedError).
 */
export async function selectFinalSubmission(
  db: Db,
  options: SelectFinalSubmissionOptions,
): Promise<{ challengeSlug: string }> {
  const submission = await db.submission.findUnique({
    where: { id: options.submissionId },
    select: {
      id: true,
      userId: true,
      challengeId: true,
      status: true,
      verdict: true,
      disqualified: true,
      challenge: { select: { slug: true } },
    },
  });
  if (!submission || submission.userId !== options.userId)
    throw new NotFoundError(`No submission ${options.submissionId} of yours`);
  if (options.challengeSlug !== undefined && options.challengeSlug !== submission.challenge.slug)
    throw new RefusedError(
      `Submission ${submission.id} belongs to ${submission.challenge.slug}, not ${options.challengeSlug}.`,
      'other-challenge',
    );
  await checkFinalSelectionOpen(db, submission.challenge.slug, options.now);
  if (submission.disqualified)
    throw new RefusedError(
      'This submission was disqualified: it cannot be your final one.',
      'disqualified',
    );
  if (submission.status !== 'DONE' || submission.verdict !== 'ACCEPTED')
    throw new RefusedError(
      'Only an accepted submission can be your final one (this one is ' +
        `${submission.status === 'DONE' ? (submission.verdict ?? 'not judged') : 'still being judged'}).`,
      'not-accepted',
    );
  await db.finalSelection.upsert({
    where: { challengeId_userId: { challengeId: submission.challengeId, userId: options.userId } },
    create: {
      challengeId: submission.challengeId,
      userId: options.userId,
      submissionId: submission.id,
    },
    update: { submissionId: submission.id, selectedAt: new Date() },
  });
  return { challengeSlug: submission.challenge.slug };
}
