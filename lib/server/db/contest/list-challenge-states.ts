// Every challenge with the state the organizer console shows on its front page.
import { manifestSchema } from '../../../../contracts';
import {
  contestDeadline,
  contestState,
  type ContestState,
} from '../../../core/challenge/contest-state';
import type { Db } from '../client';

export interface ChallengeState {
  slug: string;
  title: string;
  /** The organizer's deadline, else the manifest's. */
  deadline: Date | null;
  state: ContestState;
  solutionsPublishedAt: Date | null;
  submissions: number;
}

export async function listChallengeStates(db: Db, now = new Date()): Promise<ChallengeState[]> {
  const rows = await db.challenge.findMany({
    orderBy: { createdAt: 'asc' },
    select: {
      slug: true,
      title: true,
      deadline: true,
      closedAt: true,
      solutionsPublishedAt: true,
      versions: { orderBy: { version: 'desc' }, take: 1, select: { manifest: true } },
      _count: { select: { submissions: true } },
    },
  });
  return rows.map((r) => {
    const manifest = r.versions[0] ? manifestSchema.parse(r.versions[0].manifest) : {};
    const deadline = contestDeadline(r.deadline, manifest);
    return {
      slug: r.slug,
      title: r.title,
      deadline,
      state: contestState({ closedAt: r.closedAt, deadline }, now).state,
      solutionsPublishedAt: r.solutionsPublishedAt,
      submissions: r._count.submissions,
    };
  });
}
