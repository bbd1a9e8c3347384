// Where a contest's final result stands, for the public pages' banners and links (challenge page,
// provisional leaderboard): the latest final evaluation that was not cancelled, with no figures
// (those are public only once published: lib/server/db/final/get-final-evaluation.ts).
import 'server-only';
import type { Db } from '../client';

export interface ContestResultState {
  evaluationId: string;
  status: 'RUNNING' | 'DONE' | 'FAILED';
  publishedAt: Date | null;
  startedAt: Date;
}

export async function getContestResultState(
  db: Db,
  challengeSlug: string,
): Promise<ContestResultState | null> {
  const evaluation = await db.finalEvaluation.findFirst({
    where: { challenge: { slug: challengeSlug }, status: { not: 'CANCELLED' } },
    orderBy: { startedAt: 'desc' },
    select: { id: true, status: true, publishedAt: true, startedAt: true },
  });
  if (!evaluation || evaluation.status === 'CANCELLED') return null;
  return {
    evaluationId: evaluation.id,
    status: evaluation.status,
    publishedAt: evaluation.publishedAt,
    startedAt: evaluation.startedAt,
  };
}
