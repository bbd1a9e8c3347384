// The organizer's setting "a newer submission supersedes the author's own queued one": when it is
// on, a contestant's submissions of the challenge that still wait in the queue (no target taken by
// a runner yet) are settled as superseded by the new one: their judgings CANCELLED with a message
// naming it, the submission settled (verdict none), the patch kept. Returns their queue jobs, for
// the caller to withdraw from Redis.
import type { Db } from '../client';
import { ConflictError } from '../errors';
import { settleSubmission } from './settle-submission';

export interface SupersededSubmission {
  submissionId: string;
  judgings: { judgingId: string; round: number }[];
}

function supersededMessage(newerId: string): string {
  return `superseded by your newer submission ${newerId} before it was judged (the contest judges the newest queued one)`;
}

/**
 * A runner took a queued judging while we superseded it: thrown inside the transaction so that
 * it rolls back, and told apart from other conflicts by its class.
 */
class TakenMeanwhile extends ConflictError {
  override name = 'TakenMeanwhile';
}

export async function supersedeQueuedSubmissions(
  db: Db,
  newer: { submissionId: string },
): Promise<SupersededSubmission[]> {
  return supersede(db, newer).catch((error: unknown) => {
    if (error instanceof TakenMeanwhile) return [];
    throw error;
  });
}

function supersede(db: Db, newer: { submissionId: string }): Promise<SupersededSubmission[]> {
  return db.$transaction(async (tx) => {
    const submission = await tx.submission.findUniqueOrThrow({
      where: { id: newer.submissionId },
      select: {
        userId: true,
        createdAt: true,
        challenge: { select: { id: true, supersedeQueued: true } },
      },
    });
    if (!submission.challenge.supersedeQueued) return [];
    const older = await tx.submission.findMany({
      where: {
        userId: submission.userId,
        challengeId: submission.challenge.id,
        id: { not: newer.submissionId },
        createdAt: { lte: submission.createdAt },
        status: 'QUEUED',
        // Not one of its targets taken by a runner: a judging under way is finished.
        judgings: { every: { status: 'QUEUED' } },
      },
      select: { id: true, judgings: { select: { id: true, round: true } } },
    });
    const superseded: SupersededSubmission[] = [];
    for (const s of older) {
      // Locks the row, as every settling of a submission does.
      await tx.$queryRaw`SELECT id FROM "Submission" WHERE id = ${s.id} FOR UPDATE`;
      const { count } = await tx.judging.updateMany({
        where: { submissionId: s.id, status: 'QUEUED' },
        data: {
          status: 'CANCELLED',
          message: supersededMessage(newer.submissionId),
          finishedAt: new Date(),
        },
      });
      // A runner took one of them meanwhile: leave everything as it was (judged as usual).
      if (count !== s.judgings.length) throw new TakenMeanwhile();
      await tx.submission.update({
        where: { id: s.id },
        data: { supersededById: newer.submissionId },
      });
      await settleSubmission(tx, s.id);
      superseded.push({
        submissionId: s.id,
        judgings: s.judgings.map((j) => ({ judgingId: j.id, round: j.round })),
      });
    }
    return superseded;
  });
}
