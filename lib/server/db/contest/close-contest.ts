// An organizer closes a contest (no more submissions, whatever the deadline says) or reopens it.
import type { Db } from '../client';
import { setChallengeMoment } from './set-challenge-moment';

export interface CloseContestOptions {
  actorId: string;
  slug: string;
  /** False reopens it. */
  closed: boolean;
  reason: string;
}

/** Returns when it was closed (null once reopened); closing a closed contest keeps the first time. */
export function closeContest(db: Db, options: CloseContestOptions): Promise<Date | null> {
  return setChallengeMoment(db, {
    actorId: options.actorId,
    slug: options.slug,
    reason: options.reason,
    column: 'closedAt',
    on: options.closed,
    actions: { on: 'challenge.close', off: 'challenge.reopen' },
  });
}
