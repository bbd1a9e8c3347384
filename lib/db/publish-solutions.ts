// An organizer publishes a contest's solutions (from then on everyone may read every patch, see
// lib/access/patch-access.ts) or hides them again.
import type { Db } from './client';
import { appendAuditLog } from './append-audit-log';
import { NotFoundError } from './errors';

export interface PublishSolutionsOptions {
  actorId: string;
  slug: string;
  /** False hides them again. */
  published: boolean;
  reason: string;
}

/** Returns when they were published (null once hidden); publishing twice keeps the first time. */
export async function publishSolutions(
  db: Db,
  options: PublishSolutionsOptions,
): Promise<Date | null> {
  return db.$transaction(async (tx) => {
    const challenge = await tx.challenge.findUnique({
      where: { slug: options.slug },
      select: { id: true, solutionsPublishedAt: true },
    });
    if (!challenge) throw new NotFoundError(`No challenge ${options.slug}`);
    const at = options.published ? (challenge.solutionsPublishedAt ?? new Date()) : null;
    if ((at === null) === (challenge.solutionsPublishedAt === null)) return at;
    await tx.challenge.update({ where: { id: challenge.id }, data: { solutionsPublishedAt: at } });
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: options.published ? 'challenge.publish-solutions' : 'challenge.hide-solutions',
      subjectType: 'challenge',
      subjectId: options.slug,
      reason: options.reason,
    });
    return at;
  });
}
