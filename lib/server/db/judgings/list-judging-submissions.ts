// Which submission each judging belongs to, for the runners' current jobs in the console.
import type { Db } from '../client';

export async function listJudgingSubmissions(
  db: Db,
  judgingIds: string[],
): Promise<Map<string, string>> {
  if (judgingIds.length === 0) return new Map();
  const rows = await db.judging.findMany({
    where: { id: { in: judgingIds.slice(0, 500) } },
    select: { id: true, submissionId: true },
  });
  return new Map(rows.map((r) => [r.id, r.submissionId]));
}
