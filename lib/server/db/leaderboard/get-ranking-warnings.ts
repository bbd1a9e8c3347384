// The final ranking's own warnings (lib/core/ranking: figures it could compute but that are weak, e.g.
// too few rounds for the tests to separate anyone), read from the stored ranking for the pages:
// they explain shared places, so the console and the published page show them, with the
// finalists' names where the ranking names them by entrant id.
import 'server-only';
import { z } from 'zod';
import type { Db } from '../client';

const storedWarningsSchema = z.object({ warnings: z.array(z.string().max(2000)).max(200) });

export async function getRankingWarnings(db: Db, evaluationId: string): Promise<string[]> {
  const row = await db.finalEvaluation.findUnique({
    where: { id: evaluationId },
    select: {
      ranking: true,
      entrants: { select: { id: true, user: { select: { name: true } } } },
    },
  });
  // An older ranking without warnings, or none yet: nothing to say.
  const parsed = storedWarningsSchema.safeParse(row?.ranking);
  if (!parsed.success || !row) return [];
  const names = row.entrants.map((e) => [e.id, e.user.name] as const);
  return parsed.data.warnings.map((w) =>
    names.reduce((text, [id, name]) => text.split(id).join(name), w),
  );
}
