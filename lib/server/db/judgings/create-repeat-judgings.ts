// An organizer's "rejudge N times" (audit-logged): N JudgingRepeat rows per target of a submission,
// one series, each to be judged like any judging and recorded beside the submission only. The
// caller (lib/server/submit/repeat-judgings.ts) enqueues them.
import { randomBytes } from 'node:crypto';
import { appendAuditLog } from '../audit/append-audit-log';
import type { Db } from '../client';
import { NotFoundError, RefusedError } from '../errors';

/** The most a series may ask for (the API says so too): each is a full judging of a runner's time. */
export const MIN_REPEATS = 2;
export const MAX_REPEATS = 20;

export interface CreateRepeatJudgingsOptions {
  actorId: string;
  submissionId: string;
  times: number;
  /** Only this target; default every target the submission was judged on. */
  target?: string;
  reason: string;
}

export interface CreatedRepeat {
  repeatId: string;
  /** The submission's judging on that target: the repeat's job is built from it. */
  judgingId: string;
  target: string;
  index: number;
}

export async function createRepeatJudgings(
  db: Db,
  options: CreateRepeatJudgingsOptions,
): Promise<{ seriesId: string; repeats: CreatedRepeat[] }> {
  if (
    !Number.isInteger(options.times) ||
    options.times < MIN_REPEATS ||
    options.times > MAX_REPEATS
  )
    throw new RefusedError(
      `Between ${MIN_REPEATS} and ${MAX_REPEATS} repeats, not ${options.times}.`,
      'bad-times',
    );
  return db.$transaction(async (tx) => {
    const submission = await tx.submission.findUnique({
      where: { id: options.submissionId },
      select: {
        id: true,
        judgings: {
          orderBy: { target: { name: 'asc' } },
          select: { id: true, targetId: true, target: { select: { name: true } } },
        },
      },
    });
    if (!submission) throw new NotFoundError(`No submission ${options.submissionId}`);
    const judgings = submission.judgings.filter(
      (j) => options.target === undefined || j.target.name === options.target,
    );
    if (judgings.length === 0)
      throw new NotFoundError(
        `Submission ${options.submissionId} was not judged on ${options.target ?? 'any target'}`,
      );
    const seriesId = randomBytes(12).toString('hex');
    const repeats: CreatedRepeat[] = [];
    for (const j of judgings)
      for (let index = 1; index <= options.times; index++) {
        const row = await tx.judgingRepeat.create({
          data: {
            submissionId: submission.id,
            targetId: j.targetId,
            seriesId,
            index,
            requestedById: options.actorId,
          },
          select: { id: true },
        });
        repeats.push({ repeatId: row.id, judgingId: j.id, target: j.target.name, index });
      }
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: 'submission.repeat',
      subjectType: 'submission',
      subjectId: submission.id,
      reason: options.reason,
      payload: { seriesId, times: options.times, targets: judgings.map((j) => j.target.name) },
    });
    return { seriesId, repeats };
  });
}
