// Every challenge for the home page: title, summary, deadline and how many take part.
import { manifestSchema } from '../../../../contracts';
import type { Db } from '../client';

export interface ChallengeListItem {
  slug: string;
  title: string;
  summary: string;
  deadline: Date | null;
  closed: boolean;
  contestants: number;
}

export async function listChallenges(db: Db): Promise<ChallengeListItem[]> {
  const rows = await db.challenge.findMany({
    orderBy: { createdAt: 'asc' },
    select: {
      slug: true,
      title: true,
      deadline: true,
      closedAt: true,
      versions: { orderBy: { version: 'desc' }, take: 1, select: { manifest: true } },
      _count: { select: { leaderboard: true } },
    },
  });
  return rows.map((r) => {
    const manifest = manifestSchema.safeParse(r.versions[0]?.manifest);
    return {
      slug: r.slug,
      title: r.title,
      summary: manifest.success ? manifest.data.summary : '',
      deadline: r.deadline,
      closed: r.closedAt !== null,
      contestants: r._count.leaderboard,
    };
  });
}
