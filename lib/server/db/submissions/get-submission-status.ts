// A submission's state as the live view polls it: the overall status and each target's judging
// row, plus who may see it (author, publication). Small on purpose: the events route reads it
// about once a second per watcher.
import 'server-only';
import type { JudgingStatus, Verdict } from '../../../../contracts';
import type { Db } from '../client';
import type { Prisma } from '../generated/prisma/client';

export interface JudgingStatusRow {
  judgingId: string;
  target: string;
  status: JudgingStatus;
  round: number;
  attempts: number;
  verdict: Verdict | null;
  /** The judge's one-line reason for a finished judging; why a CANCELLED one was not judged. */
  message: string | null;
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  /** When it entered the queue and when a runner took it: the queue position and time estimates. */
  queuedAt: Date;
  startedAt: Date | null;
}

/** Prisma `select` for a JudgingStatusRow (the submission page's fuller view adds to it). */
export const JUDGING_STATUS_SELECT = {
  id: true,
  status: true,
  round: true,
  attempts: true,
  verdict: true,
  message: true,
  speedup: true,
  ciLow: true,
  ciHigh: true,
  queuedAt: true,
  startedAt: true,
  target: { select: { name: true } },
} as const satisfies Prisma.JudgingSelect;

export function toJudgingStatusRow(
  j: Prisma.JudgingGetPayload<{ select: typeof JUDGING_STATUS_SELECT }>,
): JudgingStatusRow {
  return {
    judgingId: j.id,
    target: j.target.name,
    status: j.status,
    round: j.round,
    attempts: j.attempts,
    verdict: j.verdict,
    message: j.message,
    speedup: j.speedup,
    ciLow: j.ciLow,
    ciHigh: j.ciHigh,
    queuedAt: j.queuedAt,
    startedAt: j.startedAt,
  };
}

export interface SubmissionStatusRow {
  submissionId: string;
  /** For the access rule only (lib/core/access/patch-access.ts); never sent to a browser. */
  userId: string;
  solutionsPublishedAt: Date | null;
  status: 'QUEUED' | 'JUDGING' | 'DONE' | 'FAILED';
  verdict: Verdict | null;
  score: number | null;
  disqualified: boolean;
  judgings: JudgingStatusRow[];
}

export async function getSubmissionStatus(
  db: Db,
  submissionId: string,
): Promise<SubmissionStatusRow | null> {
  const row = await db.submission.findUnique({
    where: { id: submissionId },
    select: {
      id: true,
      userId: true,
      status: true,
      verdict: true,
      score: true,
      disqualified: true,
      challenge: { select: { solutionsPublishedAt: true } },
      judgings: { orderBy: { target: { name: 'asc' } }, select: JUDGING_STATUS_SELECT },
    },
  });
  if (!row) return null;
  return {
    submissionId: row.id,
    userId: row.userId,
    solutionsPublishedAt: row.challenge.solutionsPublishedAt,
    status: row.status,
    verdict: row.verdict,
    score: row.score,
    disqualified: row.disqualified,
    judgings: row.judgings.map(toJudgingStatusRow),
  };
}
