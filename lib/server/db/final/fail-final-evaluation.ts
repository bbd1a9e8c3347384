// A session part could not be timed (its job failed for good, or its runner reported the
// platform's fault after the job's retries): the evaluation is FAILED with the message, and the
// organizer may start a new one. A result for an evaluation no longer running changes nothing.
import type { Db } from '../client';
import { storableText } from '../json';
import { lockFinalEvaluation } from './record-final-session-result';

export interface FailFinalEvaluationOptions {
  evaluationId: string;
  sessionId: string;
  message: string;
}

/** True when it was running and is FAILED now. */
export async function failFinalEvaluation(
  db: Db,
  options: FailFinalEvaluationOptions,
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    await lockFinalEvaluation(tx, options.evaluationId);
    const message = storableText(options.message).slice(0, 5000);
    const failed = await tx.finalEvaluation.updateMany({
      where: { id: options.evaluationId, status: 'RUNNING' },
      data: { status: 'FAILED', message, finishedAt: new Date() },
    });
    if (failed.count === 0) return false;
    await tx.finalSession.updateMany({
      where: { id: options.sessionId, evaluationId: options.evaluationId },
      data: { message },
    });
    return true;
  });
}
