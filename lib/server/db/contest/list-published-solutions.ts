// The public list of a challenge's accepted submissions once the organizers published the solutions:
// every accepted, not disqualified submission (not only each contestant's best), best score first,
// each linking to its page (whose patch is then public too, lib/core/access/patch-access.ts). Null before
// publication, so the page answers 404 and lists nothing early.
import 'server-only';
import type { Db } from '../client';
import { NotFoundError } from '../errors';

/** A challenge has at most a few thousand accepted submissions; the page shows this many. */
export const PUBLISHED_SOLUTIONS_LIMIT = 1_000;

export interface PublishedSolution {
  submissionId: string;
  userName: string;
  score: number;
  createdAt: Date;
  /** The one that counts on the leaderboard for its contestant. */
  counts: boolean;
  targets: { target: string; speedup: number | null }[];
}

export interface PublishedSolutions {
  challenge: { slug: string; title: string };
  rows: PublishedSolution[];
  total: number;
}

export async function listPublishedSolutions(
  db: Db,
  options: { challengeSlug: string },
): Promise<PublishedSolutions | null> {
  const challenge = await db.challenge.findUnique({
    where: { slug: options.challengeSlug },
    select: { id: true, slug: true, title: true, solutionsPublishedAt: true },
  });
  if (!challenge) throw new NotFoundError(`No challenge ${options.challengeSlug}`);
  if (!challenge.solutionsPublishedAt) return null;
  const where = {
    challengeId: challenge.id,
    status: 'DONE' as const,
    verdict: 'ACCEPTED' as const,
    disqualified: false,
    score: { not: null },
  };
  const [rows, total] = await Promise.all([
    db.submission.findMany({
      where,
      orderBy: [{ score: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }],
      take: PUBLISHED_SOLUTIONS_LIMIT,
      select: {
        id: true,
        score: true,
        createdAt: true,
        user: { select: { name: true } },
        leaderboardEntry: { select: { id: true } },
        judgings: {
          orderBy: { target: { name: 'asc' } },
          select: { speedup: true, target: { select: { name: true } } },
        },
      },
    }),
    db.submission.count({ where }),
  ]);
  return {
    challenge: { slug: challenge.slug, title: challenge.title },
    total,
    rows: rows.map((r) => ({
      submissionId: r.id,
      userName: r.user.name,
      score: r.score ?? 0,
      createdAt: r.createdAt,
      counts: r.leaderboardEntry !== null,
      targets: r.judgings.map((j) => ({ target: j.target.name, speedup: j.speedup })),
    })),
  };
}
