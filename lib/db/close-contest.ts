// An organizer closes a contest (no more submissions, whatever the deadline says) or reopens it.
import type { Db } from './client';
import { appendAuditLog } from './append-audit-log';
import { NotFoundError } from './errors';

export interface CloseContestOptions {
  actorId: string;
  slug: string;
  /** False reopens it. */
  closed: boolean;
  reason: string;
}

/** Returns when it was closed (null once reopened); closing a closed contest keeps the first time. */
export async function closeContest(db: Db, options: CloseContestOptions): Promise<Date | null> {
  return db.$transaction(async (tx) => {
    const challenge = await tx.challenge.findUnique({
      where: { slug: options.slug },
      select: { id: true, closedAt: true },
    });
    if (!challenge) throw new NotFoundError(`No challenge ${options.slug}`);
    const closedAt = options.closed ? (challenge.closedAt ?? new Date()) : null;
    if ((closedAt === null) === (challenge.closedAt === null)) return closedAt;
    await tx.challenge.update({ where: { id: challenge.id }, data: { closedAt } });
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: options.closed ? 'challenge.close' : 'challenge.reopen',
      subjectType: 'challenge',
      subjectId: options.slug,
      reason: options.reason,
    });
    return closedAt;
  });
}
