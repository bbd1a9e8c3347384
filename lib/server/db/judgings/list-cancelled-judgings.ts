// A submission's cancelled judgings, for the scorer to (re)raise their cancel flags: reading them
// from the database, not from what one transaction cancelled, keeps that step safe to retry.
import type { Db } from '../client';
import type { CancelledJudging } from './record-judging-result';

export async function listCancelledJudgings(
  db: Db,
  submissionId: string,
): Promise<(CancelledJudging & { message: string })[]> {
  const rows = await db.judging.findMany({
    where: { submissionId, status: 'CANCELLED' },
    select: { id: true, round: true, message: true, target: { select: { name: true } } },
  });
  return rows.map((r) => ({
    judgingId: r.id,
    round: r.round,
    target: r.target.name,
    message: r.message ?? 'not judged',
  }));
}
