// The scorer's write for one "rejudge N times" judging: its result into its JudgingRepeat row only.
// The submission's verdict, score, judgings and leaderboard row are never touched. A second
// delivery changes nothing.
import type { JudgingResult } from '../../../../contracts';
import type { Db } from '../client';
import { InvalidResultError, NotFoundError } from '../errors';
import { storableText, toJson } from '../json';

export interface RecordRepeatResultOptions {
  repeatId: string;
  /** Already parsed with judgingResultSchema by the consumer. */
  result: JudgingResult;
}

export async function recordRepeatResult(
  db: Db,
  options: RecordRepeatResultOptions,
): Promise<'recorded' | 'duplicate'> {
  const { repeatId, result } = options;
  const row = await db.judgingRepeat.findUnique({
    where: { id: repeatId },
    select: {
      status: true,
      target: { select: { name: true } },
      submission: {
        select: { challengeVersion: { select: { challenge: { select: { slug: true } } } } },
      },
    },
  });
  if (!row) throw new NotFoundError(`No repeat judging ${repeatId}`);
  if (row.status === 'DONE' || row.status === 'CANCELLED') return 'duplicate';
  if (
    result.target !== row.target.name ||
    result.challenge.slug !== row.submission.challengeVersion.challenge.slug
  )
    throw new InvalidResultError(
      `Result for ${result.challenge.slug} ${result.target} delivered to repeat ${repeatId} (${row.target.name})`,
    );
  const estimate = result.stages.measure?.estimate ?? null;
  const updated = await db.judgingRepeat.updateMany({
    where: { id: repeatId, status: { notIn: ['DONE', 'CANCELLED'] } },
    data: {
      status: 'DONE',
      verdict: result.verdict,
      message: storableText(result.message),
      speedup: estimate?.speedup ?? null,
      ciLow: estimate?.ciLow ?? null,
      ciHigh: estimate?.ciHigh ?? null,
      result: toJson(result),
      finishedAt: new Date(result.finishedAt),
    },
  });
  return updated.count > 0 ? 'recorded' : 'duplicate';
}
