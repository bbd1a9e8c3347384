// A contestant's own submissions, newest first and capped, with each target's verdict and speedup,
// and the running maximum of their accepted scores per challenge (the "best score over time" chart).
import 'server-only';
import type { JudgingStatus, Verdict } from '../../../../contracts';
import type { Db } from '../client';
import { SUBMISSION_STATE_SELECT } from './submission-state-select';

const MY_SUBMISSIONS_LIMIT = 200;
/** Accepted submissions the best-score series is built from (oldest dropped beyond it). */
const BEST_SERIES_LIMIT = 5_000;

export interface MySubmissionRow {
  id: string;
  createdAt: Date;
  challenge: { slug: string; title: string };
  status: 'QUEUED' | 'JUDGING' | 'DONE' | 'FAILED';
  verdict: Verdict | null;
  score: number | null;
  disqualified: boolean;
  targets: {
    target: string;
    status: JudgingStatus;
    verdict: Verdict | null;
    speedup: number | null;
    ciLow: number | null;
    ciHigh: number | null;
  }[];
}

export interface BestScoreSeries {
  challenge: { slug: string; title: string };
  /** One point per improvement: when the submission was made, and the best score since. */
  points: { at: string; score: number; submissionId: string }[];
}

export interface MySubmissions {
  rows: MySubmissionRow[];
  /** All of the user's submissions; rows holds at most `limit` of them. */
  total: number;
  limit: number;
  best: BestScoreSeries[];
}

/** Keeps only the submissions that raised the best score (they arrive oldest first). */
export function runningBest(
  accepted: { createdAt: Date; score: number; id: string }[],
): BestScoreSeries['points'] {
  const points: BestScoreSeries['points'] = [];
  let best = -Infinity;
  for (const s of accepted) {
    if (s.score > best) {
      best = s.score;
      points.push({ at: s.createdAt.toISOString(), score: s.score, submissionId: s.id });
    }
  }
  return points;
}

export async function listMySubmissions(
  db: Db,
  options: { userId: string; limit?: number },
): Promise<MySubmissions> {
  const limit = Math.min(Math.max(options.limit ?? MY_SUBMISSIONS_LIMIT, 1), MY_SUBMISSIONS_LIMIT);
  const [rows, total, accepted] = await Promise.all([
    db.submission.findMany({
      where: { userId: options.userId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
      select: {
        ...SUBMISSION_STATE_SELECT,
        challenge: { select: { slug: true, title: true } },
        judgings: {
          orderBy: { target: { name: 'asc' } },
          select: {
            status: true,
            verdict: true,
            speedup: true,
            ciLow: true,
            ciHigh: true,
            target: { select: { name: true } },
          },
        },
      },
    }),
    db.submission.count({ where: { userId: options.userId } }),
    db.submission.findMany({
      where: { userId: options.userId, score: { not: null }, disqualified: false },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: BEST_SERIES_LIMIT,
      select: {
        id: true,
        createdAt: true,
        score: true,
        challenge: { select: { slug: true, title: true } },
      },
    }),
  ]);

  const byChallenge = new Map<
    string,
    { challenge: { slug: string; title: string }; items: typeof accepted }
  >();
  for (const s of accepted.reverse()) {
    const entry = byChallenge.get(s.challenge.slug) ?? { challenge: s.challenge, items: [] };
    entry.items.push(s);
    byChallenge.set(s.challenge.slug, entry);
  }

  return {
    rows: rows.map((s) => ({
      id: s.id,
      createdAt: s.createdAt,
      challenge: s.challenge,
      status: s.status,
      verdict: s.verdict,
      score: s.score,
      disqualified: s.disqualified,
      targets: s.judgings.map((j) => ({
        target: j.target.name,
        status: j.status,
        verdict: j.verdict,
        speedup: j.speedup,
        ciLow: j.ciLow,
        ciHigh: j.ciHigh,
      })),
    })),
    total,
    limit,
    best: [...byChallenge.values()].map(({ challenge, items }) => ({
      challenge,
      points: runningBest(
        items.map((s) => ({ id: s.id, createdAt: s.createdAt, score: s.score ?? 0 })),
      ),
    })),
  };
}
