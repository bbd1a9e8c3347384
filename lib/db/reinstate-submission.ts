// An organizer takes back a disqualification: the submission counts again, so its owner's
// leaderboard row is recomputed in the same transaction.
import type { Db } from './client';
import { appendAuditLog } from './append-audit-log';
import { NotFoundError } from './errors';
import { refreshLeaderboardEntry } from './refresh-leaderboard-entry';

export interface ReinstateSubmissionOptions {
  actorId: string;
  submissionId: string;
  reason: string;
}

export async function reinstateSubmission(
  db: Db,
  options: ReinstateSubmissionOptions,
): Promise<void> {
  await db.$transaction(async (tx) => {
    const updated = await tx.submission.updateMany({
      where: { id: options.submissionId },
      data: { disqualified: false, disqualifiedReason: null },
    });
    if (updated.count === 0) throw new NotFoundError(`No submission ${options.submissionId}`);
    const s = await tx.submission.findUniqueOrThrow({
      where: { id: options.submissionId },
      select: { challengeId: true, userId: true },
    });
    await refreshLeaderboardEntry(tx, s);
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: 'submission.reinstate',
      subjectType: 'submission',
      subjectId: options.submissionId,
      reason: options.reason,
    });
  });
}
