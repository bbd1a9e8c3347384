// An organizer disqualifies a submission (e.g. it games the benchmark); its leaderboard row falls
// back to the user's next best submission.
import type { Db } from '../client';
import { appendAuditLog } from '../audit/append-audit-log';
import { NotFoundError } from '../errors';
import { refreshLeaderboardEntry } from '../leaderboard/refresh-leaderboard-entry';

export interface DisqualifySubmissionOptions {
  actorId: string;
  submissionId: string;
  reason: string;
}

export function disqualifySubmission(db: Db, options: DisqualifySubmissionOptions): Promise<void> {
  return setDisqualified(db, options, true);
}

/**
 * Disqualifies or reinstates, with the owner's leaderboard row recomputed and the audit record
 * written in the same transaction.
 */
export async function setDisqualified(
  db: Db,
  options: DisqualifySubmissionOptions,
  disqualified: boolean,
): Promise<void> {
  await db.$transaction(async (tx) => {
    const updated = await tx.submission.updateMany({
      where: { id: options.submissionId },
      data: { disqualified, disqualifiedReason: disqualified ? options.reason : null },
    });
    if (updated.count === 0) throw new NotFoundError(`No submission ${options.submissionId}`);
    const s = await tx.submission.findUniqueOrThrow({
      where: { id: options.submissionId },
      select: { challengeId: true, userId: true },
    });
    await refreshLeaderboardEntry(tx, s);
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: disqualified ? 'submission.disqualify' : 'submission.reinstate',
      subjectType: 'submission',
      subjectId: options.submissionId,
      reason: options.reason,
    });
  });
}
