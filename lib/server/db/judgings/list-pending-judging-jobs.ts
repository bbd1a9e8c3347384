// The jobs of a submission's judgings that still need a result (not DONE, not CANCELLED), read back
// from the database to enqueue them again (a rejudge, the reconciler): lib/server/submit/enqueue-submission.ts.
import { judgingJobSchema, type JudgingJob } from '../../../../contracts';
import type { Db } from '../client';
import { getJudgingJob } from './get-judging-job';

export async function listPendingJudgingJobs(
  db: Db,
  submissionId: string,
  only?: readonly string[],
): Promise<JudgingJob[]> {
  const rows = await db.judging.findMany({
    where: {
      submissionId,
      status: { in: ['QUEUED', 'WAITING', 'JUDGING'] },
      ...(only ? { id: { in: [...only] } } : {}),
    },
    select: { id: true },
  });
  const jobs: JudgingJob[] = [];
  for (const row of rows) {
    const job = await getJudgingJob(db, row.id);
    // Parsed like a consumer would: a row the contract cannot carry fails here, not on a runner.
    if (job) jobs.push(judgingJobSchema.parse(job));
  }
  return jobs;
}
