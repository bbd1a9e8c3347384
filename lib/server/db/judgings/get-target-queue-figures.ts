// What the live view needs to say where a judging stands in its target's queue and how long it may
// take: how many judgings of the same target are ahead of it (queued earlier, or already taken by a
// runner), how many are being judged at once now, and how long recent judgings took. Judging rows
// are the source: the queue in Redis is only work in flight and may be rebuilt by the reconciler.
import 'server-only';
import type { Db } from '../client';

export interface TargetQueueFigures {
  /** Judgings of the target taken by a runner right now (WAITING or JUDGING): at least 1 is assumed. */
  inProgress: number;
  /** Median wall time of the target's last judgings from taken to done, null before any. */
  typicalMs: number | null;
}

/** How many recent judgings the typical duration is the median of. */
const RECENT = 20;

export async function getTargetQueueFigures(
  db: Db,
  targetName: string,
): Promise<TargetQueueFigures> {
  // A target name is one queue ("judge:<target>") whatever the challenge or version.
  const [row] = await db.$queryRaw<{ inProgress: number; typicalMs: number | null }[]>`
    SELECT
      (SELECT count(*)::int FROM "Judging" j JOIN "Target" t ON t.id = j."targetId"
        WHERE t.name = ${targetName} AND j.status IN ('WAITING', 'JUDGING')) AS "inProgress",
      (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::float8 FROM (
         SELECT extract(epoch FROM j."finishedAt" - j."startedAt") * 1000 AS ms
         FROM "Judging" j JOIN "Target" t ON t.id = j."targetId"
         WHERE t.name = ${targetName} AND j.status = 'DONE'
           AND j."startedAt" IS NOT NULL AND j."finishedAt" IS NOT NULL
         ORDER BY j."finishedAt" DESC LIMIT ${RECENT}) recent) AS "typicalMs"`;
  return { inProgress: row?.inProgress ?? 0, typicalMs: row?.typicalMs ?? null };
}

/**
 * Judgings of the same target ahead of this queued one: already taken, or before it in the fair
 * queue (a lower priority, or the same one and queued earlier: BullMQ's order).
 */
export async function countJudgingsAhead(
  db: Db,
  judging: { judgingId: string; queuedAt: Date },
): Promise<number> {
  const [row] = await db.$queryRaw<{ ahead: number }[]>`
    SELECT count(*)::int AS ahead
    FROM "Judging" me JOIN "Target" mt ON mt.id = me."targetId"
    JOIN "Target" t ON t.name = mt.name
    JOIN "Judging" j ON j."targetId" = t.id
    WHERE me.id = ${judging.judgingId} AND j.id <> me.id
      AND (j.status IN ('WAITING', 'JUDGING')
           OR (j.status = 'QUEUED'
               AND (j."queuePriority", j."queuedAt", j.id) < (me."queuePriority", me."queuedAt", me.id)))`;
  return row?.ahead ?? 0;
}
