// A submission's "rejudge N times" judgings, side by side (oldest series first, by target and index),
// so a dispute can be settled with numbers.
import type { Db } from '../client';

export interface RepeatJudgingRow {
  repeatId: string;
  seriesId: string;
  target: string;
  index: number;
  status: 'QUEUED' | 'WAITING' | 'JUDGING' | 'DONE' | 'CANCELLED';
  verdict: string | null;
  message: string | null;
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export async function listRepeatJudgings(
  db: Db,
  submissionId: string,
): Promise<RepeatJudgingRow[]> {
  const rows = await db.judgingRepeat.findMany({
    where: { submissionId },
    orderBy: [
      { createdAt: 'asc' },
      { seriesId: 'asc' },
      { target: { name: 'asc' } },
      { index: 'asc' },
    ],
    select: {
      id: true,
      seriesId: true,
      index: true,
      status: true,
      verdict: true,
      message: true,
      speedup: true,
      ciLow: true,
      ciHigh: true,
      createdAt: true,
      finishedAt: true,
      target: { select: { name: true } },
    },
  });
  return rows.map((r) => ({
    repeatId: r.id,
    seriesId: r.seriesId,
    target: r.target.name,
    index: r.index,
    status: r.status,
    verdict: r.verdict,
    message: r.message,
    speedup: r.speedup,
    ciLow: r.ciLow,
    ciHigh: r.ciHigh,
    createdAt: r.createdAt,
    finishedAt: r.finishedAt,
  }));
}
