// For the reconciler: the final session parts of running evaluations and the repeat judgings that
// still wait for a result after a while, which the queue may have lost. Re-enqueueing them is
// harmless: job ids come from (session, part) and the repeat's id.
import type { Db } from '../client';
import { recordedParts } from './get-final-session-jobs';

export interface UnfinishedFinalPart {
  evaluationId: string;
  sessionId: string;
  part: number;
  target: string;
}

export interface UnfinishedRepeat {
  repeatId: string;
  submissionId: string;
  target: string;
}

export async function listUnfinishedFinalParts(
  db: Db,
  options: { olderThan: Date; limit?: number },
): Promise<UnfinishedFinalPart[]> {
  const sessions = await db.finalSession.findMany({
    where: {
      evaluation: { status: 'RUNNING' },
      status: { in: ['QUEUED', 'WAITING', 'JUDGING'] },
      updatedAt: { lt: options.olderThan },
    },
    orderBy: { updatedAt: 'asc' },
    take: options.limit ?? 200,
    select: {
      id: true,
      evaluationId: true,
      parts: true,
      results: true,
      target: { select: { name: true } },
    },
  });
  return sessions.flatMap((s) => {
    const recorded = recordedParts(s.results);
    return Array.from({ length: s.parts }, (_, part) => part)
      .filter((part) => !recorded.has(part))
      .map((part) => ({
        evaluationId: s.evaluationId,
        sessionId: s.id,
        part,
        target: s.target.name,
      }));
  });
}

export async function listUnfinishedRepeats(
  db: Db,
  options: { olderThan: Date; limit?: number },
): Promise<UnfinishedRepeat[]> {
  const rows = await db.judgingRepeat.findMany({
    where: {
      status: { in: ['QUEUED', 'WAITING', 'JUDGING'] },
      createdAt: { lt: options.olderThan },
    },
    orderBy: { createdAt: 'asc' },
    take: options.limit ?? 500,
    select: { id: true, submissionId: true, target: { select: { name: true } } },
  });
  return rows.map((r) => ({ repeatId: r.id, submissionId: r.submissionId, target: r.target.name }));
}
