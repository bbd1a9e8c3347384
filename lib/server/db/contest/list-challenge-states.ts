// Every challenge with the state the organizer console shows on its front page.
import type { Db } from '../client';

export interface ChallengeState {
  slug: string;
  title: string;
  deadline: Date | null;
  closedAt: Date | null;
  solutionsPublishedAt: Date | null;
  submissions: number;
}

export async function listChallengeStates(db: Db): Promise<ChallengeState[]> {
  const rows = await db.challenge.findMany({
    orderBy: { createdAt: 'asc' },
    select: {
      slug: true,
      title: true,
      deadline: true,
      closedAt: true,
      solutionsPublishedAt: true,
      _count: { select: { submissions: true } },
    },
  });
  return rows.map(({ _count, ...r }) => ({ ...r, submissions: _count.submissions }));
}
