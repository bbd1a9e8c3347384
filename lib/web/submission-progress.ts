// The live state of a submission, per target: the judging row's status from PostgreSQL merged with
// the runner's latest progress event on its BullMQ job. Shared by the submission page (first
// render), GET /api/submissions/[id] (the polling fallback) and the events stream.
import 'server-only';
import {
  STAGES,
  judgingJobId,
  judgingProgressSchema,
  type JudgingProgress,
  type JudgingStatus,
  type Stage,
  type TargetId,
  type Verdict,
} from '../../contracts';
import type { Db } from '../db/client';
import { getSubmissionStatus, type SubmissionStatusRow } from '../db/get-submission-status';
import type { QueueSet } from '../queue/producer';
import { withTimeout } from '../queue/producer';

/** What a browser is sent: no user ids, nothing but figures the page shows anyway. */
export interface TargetProgress {
  target: string;
  status: JudgingStatus;
  verdict: Verdict | null;
  /** Runner attempts this round: above 1 means a platform fault was retried. */
  attempts: number;
  /** The judge's stage, 'queued' before a runner took it, 'starting' before its first event, 'done'. */
  stage: Stage | 'queued' | 'starting' | 'done';
  /** 0..1 within the stage, null when unknown. */
  stageFraction: number | null;
  /** 0..1 over the whole judging (each of the six stages counts the same). */
  overall: number;
  message: string | null;
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
}

export interface SubmissionProgress {
  submissionId: string;
  status: 'QUEUED' | 'JUDGING' | 'DONE' | 'FAILED';
  verdict: Verdict | null;
  score: number | null;
  disqualified: boolean;
  /** Every judging has its final result: nothing more will change without a rejudge. */
  done: boolean;
  /** False when Redis could not be read: stages then come from the database alone. */
  live: boolean;
  targets: TargetProgress[];
}

/** Merges the rows with the progress events (by judging id); a stale round's event is ignored. */
export function progressFromStatus(
  row: SubmissionStatusRow,
  events: ReadonlyMap<string, JudgingProgress>,
  live: boolean,
): SubmissionProgress {
  const targets = row.judgings.map((j): TargetProgress => {
    const base = {
      target: j.target,
      status: j.status,
      verdict: j.verdict,
      attempts: j.attempts,
      speedup: j.speedup,
      ciLow: j.ciLow,
      ciHigh: j.ciHigh,
    };
    if (j.status === 'DONE')
      return { ...base, stage: 'done', stageFraction: 1, overall: 1, message: null };
    // Not judged: the submission already failed on another target ("not judged: …").
    if (j.status === 'CANCELLED')
      return { ...base, stage: 'done', stageFraction: 1, overall: 1, message: j.message };
    const event = events.get(j.judgingId);
    if (event && event.round === j.round) {
      const index = STAGES.indexOf(event.stage);
      return {
        ...base,
        // A runner is at work even if the claim has not reached the database yet.
        status: 'JUDGING',
        stage: event.stage,
        stageFraction: event.fraction,
        overall: Math.min(1, (index + event.fraction) / STAGES.length),
        message: event.message || null,
      };
    }
    return {
      ...base,
      stage: j.status === 'JUDGING' ? 'starting' : 'queued',
      stageFraction: null,
      overall: 0,
      message: null,
    };
  });
  return {
    submissionId: row.submissionId,
    status: row.status,
    verdict: row.verdict,
    score: row.score,
    disqualified: row.disqualified,
    // Settled, not only judged: the overall verdict and score are written with the last judging.
    done:
      (row.status === 'DONE' || row.status === 'FAILED') &&
      row.judgings.every((j) => j.status === 'DONE' || j.status === 'CANCELLED'),
    live,
    targets,
  };
}

const REDIS_TIMEOUT_MS = 1_500;

/** The latest progress event of each unfinished judging's job this round; {live: false} if Redis failed. */
export async function readJobProgress(
  queues: Pick<QueueSet, 'judgeQueue'>,
  row: SubmissionStatusRow,
): Promise<{ events: Map<string, JudgingProgress>; live: boolean }> {
  const events = new Map<string, JudgingProgress>();
  const open = row.judgings.filter((j) => j.status !== 'DONE' && j.status !== 'CANCELLED');
  try {
    await Promise.all(
      open.map(async (j) => {
        const job = await withTimeout(
          queues.judgeQueue(j.target as TargetId).getJob(judgingJobId(j.judgingId, j.round)),
          REDIS_TIMEOUT_MS,
          'reading judging progress',
        );
        // A runner's progress is untrusted as far as this process knows: parse it like any input.
        const parsed = judgingProgressSchema.safeParse(job?.progress);
        if (parsed.success && parsed.data.judgingId === j.judgingId)
          events.set(j.judgingId, parsed.data);
      }),
    );
    return { events, live: true };
  } catch {
    return { events, live: false };
  }
}

export interface ProgressRead {
  access: { userId: string; solutionsPublishedAt: Date | null };
  progress: SubmissionProgress;
}

export async function readSubmissionProgress(
  db: Db,
  queues: Pick<QueueSet, 'judgeQueue'>,
  submissionId: string,
): Promise<ProgressRead | null> {
  const row = await getSubmissionStatus(db, submissionId);
  if (!row) return null;
  const { events, live } = await readJobProgress(queues, row);
  return {
    access: { userId: row.userId, solutionsPublishedAt: row.solutionsPublishedAt },
    progress: progressFromStatus(row, events, live),
  };
}
