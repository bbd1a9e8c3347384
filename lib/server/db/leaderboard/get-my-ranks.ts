// A contestant's current place on each challenge's leaderboard and the submission that puts them
// there (their LeaderboardEntry), for "My submissions". Places are shared on equal scores (1, 2, 2,
// 4), as the leaderboard shows them.
import 'server-only';
import type { Db } from '../client';

export interface MyRank {
  challenge: { slug: string; title: string };
  rank: number;
  /** Rows on that leaderboard. */
  of: number;
  submissionId: string;
  score: number;
}

export async function getMyRanks(db: Db, options: { userId: string }): Promise<MyRank[]> {
  const rows = await db.$queryRaw<
    { slug: string; title: string; rank: number; of: number; submissionId: string; score: number }[]
  >`
    SELECT c.slug, c.title, mine."submissionId", mine.score,
           (SELECT count(*)::int + 1 FROM "LeaderboardEntry" o
             WHERE o."challengeId" = mine."challengeId" AND o.score > mine.score) AS rank,
           (SELECT count(*)::int FROM "LeaderboardEntry" a
             WHERE a."challengeId" = mine."challengeId") AS "of"
    FROM "LeaderboardEntry" mine JOIN "Challenge" c ON c.id = mine."challengeId"
    WHERE mine."userId" = ${options.userId}
    ORDER BY c.slug`;
  return rows.map((r) => ({
    challenge: { slug: r.slug, title: r.title },
    rank: r.rank,
    of: r.of,
    submissionId: r.submissionId,
    score: r.score,
  }));
}
