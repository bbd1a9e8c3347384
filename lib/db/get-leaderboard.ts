// A challenge's leaderboard: each user's best accepted submission, highest combined score first.
// Equal scores share a rank (1, 2, 2, 4); among them the earlier submission is listed first.
import type { Db } from './client';
import { NotFoundError } from './errors';

export interface GetLeaderboardOptions {
  challengeSlug: string;
  limit?: number;
}

export interface LeaderboardRow {
  rank: number;
  userId: string;
  userName: string;
  submissionId: string;
  score: number;
  submittedAt: Date;
}

export interface Leaderboard {
  challenge: { slug: string; title: string };
  rows: LeaderboardRow[];
}

export async function getLeaderboard(db: Db, options: GetLeaderboardOptions): Promise<Leaderboard> {
  const challenge = await db.challenge.findUnique({
    where: { slug: options.challengeSlug },
    select: { id: true, slug: true, title: true },
  });
  if (!challenge) throw new NotFoundError(`No challenge ${options.challengeSlug}`);
  const entries = await db.leaderboardEntry.findMany({
    where: { challengeId: challenge.id },
    orderBy: [{ score: 'desc' }, { submittedAt: 'asc' }, { submissionId: 'asc' }],
    ...(options.limit !== undefined ? { take: options.limit } : {}),
    select: {
      userId: true,
      submissionId: true,
      score: true,
      submittedAt: true,
      user: { select: { name: true } },
    },
  });
  let rank = 0;
  const rows = entries.map((e, i) => {
    if (i === 0 || e.score !== entries[i - 1]?.score) rank = i + 1;
    return {
      rank,
      userId: e.userId,
      userName: e.user.name,
      submissionId: e.submissionId,
      score: e.score,
      submittedAt: e.submittedAt,
    };
  });
  return { challenge: { slug: challenge.slug, title: challenge.title }, rows };
}
