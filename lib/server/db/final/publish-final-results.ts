// An organizer publishes a finished final evaluation (audit-logged): from then on its ranking is
// the contest's result, shown to everyone; the provisional leaderboard stays, labelled.
import { appendAuditLog } from '../audit/append-audit-log';
import type { Db } from '../client';
import { NotFoundError, RefusedError } from '../errors';

export interface PublishFinalResultsOptions {
  actorId: string;
  evaluationId: string;
}

/** Returns when it was published; publishing again keeps the first time. */
export async function publishFinalResultsRecord(
  db: Db,
  options: PublishFinalResultsOptions,
): Promise<Date> {
  return db.$transaction(async (tx) => {
    const evaluation = await tx.finalEvaluation.findUnique({
      where: { id: options.evaluationId },
      select: { status: true, publishedAt: true, challenge: { select: { slug: true } } },
    });
    if (!evaluation) throw new NotFoundError(`No final evaluation ${options.evaluationId}`);
    if (evaluation.status !== 'DONE')
      throw new RefusedError(
        `Only a finished final evaluation can be published (this one is ${evaluation.status}).`,
        'not-done',
      );
    if (evaluation.publishedAt) return evaluation.publishedAt;
    const publishedAt = new Date();
    await tx.finalEvaluation.update({
      where: { id: options.evaluationId },
      data: { publishedAt },
    });
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: 'final.publish',
      subjectType: 'final-evaluation',
      subjectId: options.evaluationId,
      payload: { challenge: evaluation.challenge.slug },
    });
    return publishedAt;
  });
}
