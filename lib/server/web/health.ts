// What /api/health answers: whether this web server reaches PostgreSQL and Redis, how many live
// runners each target has (their heartbeats), how many scorers, and the processes a supervisor
// reports down or restarting. Apart from the route so the chaos drill (dev/chaos/) can ask it
// throughout its faults with its own database and Redis, without a web server.
import type { Redis } from 'ioredis';
import { TARGET_IDS, type TargetId } from '../../../contracts';
import { withTimeout } from '../../core/async/timeout';
import type { Db } from '../db/client';
import { listRunners } from '../queue/runner-heartbeat';
import { listSupervisorReports, serviceProblems } from '../queue/service-status';

/** Each store's check gives up after this long: a health check never hangs on an outage. */
const HEALTH_TIMEOUT_MS = 3_000;

export interface HealthReport {
  /** The database and Redis answer (a dead runner degrades the platform; the web app still serves). */
  ok: boolean;
  database: { ok: boolean };
  redis: { ok: boolean };
  runners: Record<TargetId, number>;
  scorers: number;
  problems: string[];
}

export interface HealthDeps {
  /** Asked inside the check: a missing DATABASE_URL is a failed check, not a crashed answer. */
  db: () => Db;
  /** A fail-fast connection (the web app's counters connection). */
  redis: Redis;
  prefix: string;
  /** Why a check failed (the route logs it; the answer only says which failed). */
  log: (line: string) => void;
}

async function check(probe: () => Promise<unknown>, log: HealthDeps['log']) {
  try {
    await withTimeout(probe(), HEALTH_TIMEOUT_MS);
    return { ok: true };
  } catch (error) {
    log(`health: ${(error as Error).message}`);
    return { ok: false };
  }
}

export async function checkHealth(deps: HealthDeps): Promise<HealthReport> {
  const runners = Object.fromEntries(TARGET_IDS.map((t) => [t, 0])) as Record<TargetId, number>;
  let scorers = 0;
  let problems: string[] = [];
  const [database, redis] = await Promise.all([
    check(() => deps.db().$queryRaw`SELECT 1`, deps.log),
    check(async () => {
      const [list, reports] = await Promise.all([
        listRunners(deps.redis, deps.prefix),
        listSupervisorReports(deps.redis, deps.prefix),
      ]);
      for (const runner of list.runners) runners[runner.target] += 1;
      // Each scorer reports itself (cli/commands/scorer.ts: "scorer <name> (pid N)"); npm start's
      // report of its scorer child is a second view of one of those, not counted again.
      scorers = reports.filter((r) => r.supervisor.startsWith('scorer ')).length;
      problems = serviceProblems(reports);
    }, deps.log),
  ]);
  // Without a supervisor's word (compose, systemd) a dead process is simply missing.
  if (redis.ok) {
    if (scorers === 0) problems.push('scorer: none reporting (results are not being recorded)');
    for (const target of TARGET_IDS)
      if (runners[target] === 0) problems.push(`runner ${target}: none alive`);
  }
  return { ok: database.ok && redis.ok, database, redis, runners, scorers, problems };
}
