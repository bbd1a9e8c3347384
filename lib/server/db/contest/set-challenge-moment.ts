// A challenge's on/off moment (closed, solutions published): set to now when switched on, kept
// when already on, cleared when switched off; each real change audited in the same transaction.
import type { Db } from '../client';
import { appendAuditLog, type AuditAction } from '../audit/append-audit-log';
import { NotFoundError } from '../errors';

export interface SetChallengeMomentOptions {
  actorId: string;
  slug: string;
  reason: string;
  column: 'closedAt' | 'solutionsPublishedAt';
  on: boolean;
  /** What the audit log calls the change, for on and for off. */
  actions: { on: AuditAction; off: AuditAction };
}

/** Returns the moment (null once switched off). */
export async function setChallengeMoment(
  db: Db,
  options: SetChallengeMomentOptions,
): Promise<Date | null> {
  const { column } = options;
  return db.$transaction(async (tx) => {
    const challenge = await tx.challenge.findUnique({
      where: { slug: options.slug },
      select: { id: true, closedAt: true, solutionsPublishedAt: true },
    });
    if (!challenge) throw new NotFoundError(`No challenge ${options.slug}`);
    const before = challenge[column];
    const at = options.on ? (before ?? new Date()) : null;
    if ((at === null) === (before === null)) return at;
    await tx.challenge.update({ where: { id: challenge.id }, data: { [column]: at } });
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: options.on ? options.actions.on : options.actions.off,
      subjectType: 'challenge',
      subjectId: options.slug,
      reason: options.reason,
    });
    return at;
  });
}
