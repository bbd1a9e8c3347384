// GET /api/health: whether this web server reaches PostgreSQL and Redis, and how many live runners
// each target has (their heartbeats). 200 when the database and Redis answer, 503 otherwise; used
// by `npm start`, the compose file's health check and load balancers. Never cached.
import { TARGET_IDS, type TargetId } from '../../../contracts';
import { withTimeout } from '../../../lib/async/timeout';
import { db } from '../../../lib/db/client';
import { queuePrefix } from '../../../lib/queue/connection';
import { webCounters } from '../../../lib/web/services';
// The heartbeat module itself, not runner/service/index.ts: the web must not load the judge.
import { listRunners } from '../../../runner/service/heartbeat';

export const dynamic = 'force-dynamic';

const TIMEOUT_MS = 3_000;

async function check(probe: () => Promise<unknown>): Promise<{ ok: boolean }> {
  try {
    await withTimeout(probe(), TIMEOUT_MS);
    return { ok: true };
  } catch (error) {
    console.error(`health: ${(error as Error).message}`);
    return { ok: false };
  }
}

export async function GET(): Promise<Response> {
  const runners = Object.fromEntries(TARGET_IDS.map((t) => [t, 0])) as Record<TargetId, number>;
  const [database, redis] = await Promise.all([
    check(() => db().$queryRaw`SELECT 1`),
    check(async () => {
      const list = await listRunners(webCounters(), queuePrefix());
      for (const runner of list.runners) runners[runner.target] += 1;
    }),
  ]);
  const ok = database.ok && redis.ok;
  return Response.json(
    { ok, database, redis, runners },
    { status: ok ? 200 : 503, headers: { 'cache-control': 'no-store' } },
  );
}
