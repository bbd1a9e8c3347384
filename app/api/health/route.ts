// GET /api/health: whether this web server reaches PostgreSQL and Redis, how many live runners
// each target has (their heartbeats), how many scorers, and the processes a supervisor reports
// down or restarting (`problems`, e.g. "runner linux-intel: restarting (killed by SIGKILL)").
// 200 when the database and Redis answer, 503 otherwise (a dead runner degrades the platform but
// the web app still serves); used by `npm start`, the compose file's health check and load
// balancers. Never cached.
import { TARGET_IDS, type TargetId } from '../../../contracts';
import { withTimeout } from '../../../lib/core/async/timeout';
import { db } from '../../../lib/server/db/client';
import { queuePrefix } from '../../../lib/server/queue/connection';
import { listSupervisorReports, serviceProblems } from '../../../lib/server/queue/service-status';
import { webCounters } from '../../../lib/server/queue/web-counters';
// The heartbeat module itself, not runner/service/index.ts: the web must not load the judge.
import { listRunners } from '../../../lib/server/queue/runner-heartbeat';

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
  let scorers = 0;
  let problems: string[] = [];
  const [database, redis] = await Promise.all([
    check(() => db().$queryRaw`SELECT 1`),
    check(async () => {
      const [list, reports] = await Promise.all([
        listRunners(webCounters(), queuePrefix()),
        listSupervisorReports(webCounters(), queuePrefix()),
      ]);
      for (const runner of list.runners) runners[runner.target] += 1;
      // Each scorer reports itself (cli/commands/scorer.ts: "scorer <name> (pid N)"); npm start's
      // report of its scorer child is a second view of one of those, not counted again.
      scorers = reports.filter((r) => r.supervisor.startsWith('scorer ')).length;
      problems = serviceProblems(reports);
    }),
  ]);
  // Without a supervisor's word (compose, systemd) a dead process is simply missing.
  if (redis.ok) {
    if (scorers === 0) problems.push('scorer: none reporting (results are not being recorded)');
    for (const target of TARGET_IDS)
      if (runners[target] === 0) problems.push(`runner ${target}: none alive`);
  }
  const ok = database.ok && redis.ok;
  return Response.json(
    { ok, database, redis, runners, scorers, problems },
    { status: ok ? 200 : 503, headers: { 'cache-control': 'no-store' } },
  );
}
