// For the reconciler: judgings still waiting or running after a while, which the queue may have lost
// (Redis flushed or restarted, a runner killed). Re-enqueueing them is harmless: job ids are derived
// from (judgingId, round), so a job the queue still holds is not duplicated.
import type { Db } from '../client';

export interface ListUnqueuedJudgingsOptions {
  /** Only judgings whose state has not changed since this moment (default: any). */
  olderThan?: Date;
  /** Only these judgings (the reconciler reads its findings again before it reports them). */
  judgingIds?: readonly string[];
  limit?: number;
}

export interface UnqueuedJudging {
  judgingId: string;
  round: number;
  submissionId: string;
  target: string;
  status: 'QUEUED' | 'WAITING' | 'JUDGING';
  updatedAt: Date;
}

export async function listUnqueuedJudgings(
  db: Db,
  options: ListUnqueuedJudgingsOptions,
): Promise<UnqueuedJudging[]> {
  const rows = await db.judging.findMany({
    where: {
      status: { in: ['QUEUED', 'WAITING', 'JUDGING'] },
      ...(options.olderThan ? { updatedAt: { lt: options.olderThan } } : {}),
      ...(options.judgingIds ? { id: { in: [...options.judgingIds] } } : {}),
    },
    orderBy: { updatedAt: 'asc' },
    take: options.limit ?? 500,
    select: {
      id: true,
      round: true,
      submissionId: true,
      status: true,
      updatedAt: true,
      target: { select: { name: true } },
    },
  });
  return rows.map((r) => ({
    judgingId: r.id,
    round: r.round,
    submissionId: r.submissionId,
    target: r.target.name,
    status: r.status as UnqueuedJudging['status'],
    updatedAt: r.updatedAt,
  }));
}
