// A "rejudge N times" judging's job, read back from the database (to re-enqueue it): the
// submission's judging on that target, as it would be judged now, with the repeat's id.
import type { Db } from '../client';
import { getJudgingJob, type JudgingJobData } from './get-judging-job';

export async function getRepeatJudgingJob(
  db: Db,
  repeatId: string,
): Promise<(JudgingJobData & { repeat: { repeatId: string } }) | null> {
  const r = await db.judgingRepeat.findUnique({
    where: { id: repeatId },
    select: { submissionId: true, targetId: true },
  });
  if (!r) return null;
  const judging = await db.judging.findUnique({
    where: { submissionId_targetId: { submissionId: r.submissionId, targetId: r.targetId } },
    select: { id: true },
  });
  const job = judging ? await getJudgingJob(db, judging.id) : null;
  return job ? { ...job, repeat: { repeatId } } : null;
}
