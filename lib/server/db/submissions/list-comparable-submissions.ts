// The submissions a contestant may compare one of theirs with: their other submissions to the same
// challenge (newest first, capped), and which one is their best (their leaderboard row). The caller
// has the submission's challenge from its view.
import 'server-only';
import type { Db } from '../client';

const COMPARABLE_LIMIT = 100;

export interface ComparableSubmissions {
  bestId: string | null;
  options: { id: string; createdAt: Date; score: number | null; verdict: string | null }[];
}

export async function listComparableSubmissions(
  db: Db,
  options: { userId: string; submissionId: string; challengeId: string },
): Promise<ComparableSubmissions> {
  const [rows, best] = await Promise.all([
    db.submission.findMany({
      where: {
        userId: options.userId,
        challengeId: options.challengeId,
        id: { not: options.submissionId },
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: COMPARABLE_LIMIT,
      select: { id: true, createdAt: true, score: true, verdict: true },
    }),
    db.leaderboardEntry.findUnique({
      where: {
        challengeId_userId: { challengeId: options.challengeId, userId: options.userId },
      },
      select: { submissionId: true },
    }),
  ]);
  return { bestId: best?.submissionId ?? null, options: rows };
}
