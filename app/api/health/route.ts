// GET /api/health: whether this web server reaches PostgreSQL and Redis, its runners, scorers and
// the processes a supervisor reports down or restarting (lib/server/web/health.ts says what is checked).
// 200 when the database and Redis answer, 503 otherwise (a dead runner degrades the platform but
// the web app still serves); used by `npm start`, the compose file's health check and load
// balancers. Never cached.
import { db } from '../../../lib/server/db/client';
import { queuePrefix } from '../../../lib/server/queue/connection';
import { webCounters } from '../../../lib/server/queue/web-counters';
import { checkHealth } from '../../../lib/server/web/health';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const report = await checkHealth({
    db,
    redis: webCounters(),
    prefix: queuePrefix(),
    log: (line) => console.error(line),
  });
  return Response.json(report, {
    status: report.ok ? 200 : 503,
    headers: { 'cache-control': 'no-store' },
  });
}
