// How many submissions a user made to a challenge since a moment, and the oldest of them (it tells
// when the hourly quota frees a slot).
import type { Db } from '../client';

export interface RecentSubmissions {
  count: number;
  oldest: Date | null;
}

export async function countRecentSubmissions(
  db: Db,
  options: { userId: string; challengeId: string; since: Date },
): Promise<RecentSubmissions> {
  const where = {
    userId: options.userId,
    challengeId: options.challengeId,
    createdAt: { gt: options.since },
  };
  const [count, oldest] = await Promise.all([
    db.submission.count({ where }),
    db.submission.findFirst({ where, orderBy: { createdAt: 'asc' }, select: { createdAt: true } }),
  ]);
  return { count, oldest: oldest?.createdAt ?? null };
}
