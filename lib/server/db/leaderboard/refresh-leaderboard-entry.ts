// Recomputes one user's leaderboard row for one challenge: their best accepted, not disqualified
// submission of the current board (the earlier one of equal scores) with its per-target figures, so that the leaderboard
// reads one row per contestant and no judging result. Runs inside the transaction that changed a
// score.
import type { LeaderboardCell } from './get-leaderboard-table';
import type { Tx } from '../client';
import { toJson } from '../json';

/** The figures of each of a submission's judgings the leaderboard shows, by target name. */
async function leaderboardCells(tx: Tx, submissionId: string): Promise<LeaderboardCell[]> {
  return tx.$queryRaw<LeaderboardCell[]>`
    SELECT t.name AS target,
           (j.result #>> '{stages,measure,solution,medianMs}')::float8 AS "solutionMs",
           (j.result #>> '{stages,measure,baseline,medianMs}')::float8 AS "baselineMs",
           j.speedup, j."ciLow", j."ciHigh", j.emulated, j."devMode",
           -- The host was too busy for clean wall-time pairs: a labelled CPU-time estimate.
           CASE WHEN j.result #>> '{stages,measure,estimate,basis}' = 'cpu-time'
                THEN 'cpu-time' ELSE 'wall-time' END AS basis
    FROM "Judging" j JOIN "Target" t ON t.id = j."targetId"
    WHERE j."submissionId" = ${submissionId}
    ORDER BY t.name`;
}

export async function refreshLeaderboardEntry(
  tx: Tx,
  options: { challengeId: string; userId: string },
): Promise<void> {
  // Two transactions refreshing the same row would each compute from what they see; take turns.
  const key = `leaderboard:${options.challengeId}:${options.userId}`;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
  // A new leaderboard (the benchmark definition changed without a rejudge) ranks only what came after.
  const { boardSince } = await tx.challenge.findUniqueOrThrow({
    where: { id: options.challengeId },
    select: { boardSince: true },
  });
  const best = await tx.submission.findFirst({
    where: {
      challengeId: options.challengeId,
      ...(boardSince ? { createdAt: { gte: boardSince } } : {}),
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
  const entry = {
    submissionId: best.id,
    score: best.score,
    submittedAt: best.createdAt,
    cells: toJson(await leaderboardCells(tx, best.id)),
  };
  await tx.leaderboardEntry.upsert({
    where: { challengeId_userId: { challengeId: options.challengeId, userId: options.userId } },
    create: { challengeId: options.challengeId, userId: options.userId, ...entry },
    update: entry,
  });
}
