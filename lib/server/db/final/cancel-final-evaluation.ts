// An organizer stops a running final evaluation (audit-logged): it and its unfinished sessions are
// CANCELLED; a result arriving afterwards is ignored. The caller withdraws the queued jobs.
import { appendAuditLog } from '../audit/append-audit-log';
import type { Db } from '../client';
import { NotFoundError, RefusedError } from '../errors';

export interface CancelFinalEvaluationOptions {
  actorId: string;
  evaluationId: string;
  reason: string;
}

/** The sessions that were cancelled, for the queue side to withdraw their parts' jobs. */
export async function cancelFinalEvaluationRecord(
  db: Db,
  options: CancelFinalEvaluationOptions,
): Promise<{ sessionId: string; target: string; parts: number }[]> {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "FinalEvaluation" WHERE id = ${options.evaluationId} FOR UPDATE`;
    const evaluation = await tx.finalEvaluation.findUnique({
      where: { id: options.evaluationId },
      select: {
        status: true,
        sessions: {
          select: { id: true, parts: true, status: true, target: { select: { name: true } } },
        },
      },
    });
    if (!evaluation) throw new NotFoundError(`No final evaluation ${options.evaluationId}`);
    if (evaluation.status !== 'RUNNING')
      throw new RefusedError(
        `Only a running final evaluation can be cancelled (this one is ${evaluation.status}).`,
        'not-running',
      );
    const now = new Date();
    await tx.finalEvaluation.update({
      where: { id: options.evaluationId },
      data: { status: 'CANCELLED', message: `Cancelled: ${options.reason}`, finishedAt: now },
    });
    const open = evaluation.sessions.filter((s) => s.status !== 'DONE');
    await tx.finalSession.updateMany({
      where: { id: { in: open.map((s) => s.id) } },
      data: { status: 'CANCELLED', finishedAt: now },
    });
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: 'final.cancel',
      subjectType: 'final-evaluation',
      subjectId: options.evaluationId,
      reason: options.reason,
    });
    return open.map((s) => ({ sessionId: s.id, target: s.target.name, parts: s.parts }));
  });
}
