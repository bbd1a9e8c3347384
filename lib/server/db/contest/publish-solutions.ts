// An organizer publishes a contest's solutions (from then on everyone may read every patch, see
// lib/core/access/patch-access.ts) or hides them again.
import type { Db } from '../client';
import { setChallengeMoment } from './set-challenge-moment';

export interface PublishSolutionsOptions {
  actorId: string;
  slug: string;
  /** False hides them again. */
  published: boolean;
  reason: string;
}

/** Returns when they were published (null once hidden); publishing twice keeps the first time. */
export function publishSolutions(db: Db, options: PublishSolutionsOptions): Promise<Date | null> {
  return setChallengeMoment(db, {
    actorId: options.actorId,
    slug: options.slug,
    reason: options.reason,
    column: 'solutionsPublishedAt',
    on: options.published,
    actions: { on: 'challenge.publish-solutions', off: 'challenge.hide-solutions' },
  });
}
