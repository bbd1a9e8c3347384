// Recomputes one user's leaderboard row for one challenge: their best accepted, not disqualified
// submission (the earlier one of equal scores). Runs inside the transaction that changed a score.
import type { Tx } from './client';

export async function refreshLeaderboardEntry(
  tx: Tx,
  options: { challengeId: string; userId: string },
): Promise<void> {
  // Two transactions refreshing the same row would each compute from what they see; take turns.
  const key = `leaderboard:${options.challengeId}:${options.userId}`;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
  const best = await tx.submission.findFirst({
    where: {
      challengeId: options.challengeId,
      userId: options.userId,
      status: 'DONE',
      verdict: 'ACCEPTED',
      disqualified: false,
      score: { not: null },
    },
    orderBy: [{ score: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, score: true, createdAt: true },
  });
  if (!best || best.score === null) {
    await tx.leaderboardEntry.deleteMany({
      where: { challengeId: options.challengeId, userId: options.userId },
    });
    return;
  }
  const entry = { submissionId: best.id, score: best.score, submittedAt: best.createdAt };
  await tx.leaderboardEntry.upsert({
    where: { challengeId_userId: { challengeId: options.challengeId, userId: options.userId } },
    create: { challengeId: options.challengeId, userId: options.userId, ...entry },
    update: entry,
  });
}
