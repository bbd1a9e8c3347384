// An organizer's "rejudge N times" of a submission: N independent judgings per target, recorded
// beside the submission (JudgingRepeat), never changing its verdict, score or leaderboard row.
import { judgingJobSchema, type JudgingJob, type TargetId } from '../../../contracts';
import type { Db } from '../db/client';
import { createRepeatJudgings } from '../db/judgings/create-repeat-judgings';
import { getJudgingJob } from '../db/judgings/get-judging-job';
import { enqueueRepeatJudgings, type QueueSet } from '../queue/producer';
import { REJUDGE_PRIORITY } from './rejudge';

export interface RequestRepeatJudgingsOptions {
  db: Db;
  queues: QueueSet;
  actorId: string;
  submissionId: string;
  /** 2 … 20. */
  times: number;
  target?: TargetId;
  reason: string;
  onEnqueueError?: (error: Error) => void;
}

export async function requestRepeatJudgings(
  options: RequestRepeatJudgingsOptions,
): Promise<{ seriesId: string; judgings: number; queued: number }> {
  const { db, queues } = options;
  const { seriesId, repeats } = await createRepeatJudgings(db, {
    actorId: options.actorId,
    submissionId: options.submissionId,
    times: options.times,
    reason: options.reason,
    ...(options.target ? { target: options.target } : {}),
  });
  const jobs: JudgingJob[] = [];
  const base = new Map<string, Awaited<ReturnType<typeof getJudgingJob>>>();
  for (const r of repeats) {
    if (!base.has(r.judgingId)) base.set(r.judgingId, await getJudgingJob(db, r.judgingId));
    const job = base.get(r.judgingId);
    if (job) jobs.push(judgingJobSchema.parse({ ...job, repeat: { repeatId: r.repeatId } }));
  }
  let queued = 0;
  try {
    // Below new submissions, like rejudges: a dispute must not hold up the contest.
    queued = (await enqueueRepeatJudgings(queues, jobs, { priority: REJUDGE_PRIORITY })).length;
  } catch (error) {
    options.onEnqueueError?.(error as Error);
  }
  return { seriesId, judgings: repeats.length, queued };
}
