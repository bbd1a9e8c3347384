// Supervisor reports in Redis: `<prefix>:supervisor:<id>` holds what one supervisor (npm start, or
// a scorer about itself) knows of its processes — running, restarting with the reason, down —
// with a short TTL, so a supervisor that is gone drops out by itself. Read by /api/health and the
// organizer console; runners have their own heartbeats (lib/server/queue/runner-heartbeat.ts).
import type { Redis } from 'ioredis';
import { scanKeys } from './connection';
import {
  supervisorReportSchema,
  type ServiceStatus,
  type SupervisorReport,
} from '../../../contracts';

const SUPERVISOR_REPORT_INTERVAL_MS = 5_000;
/** Four missed reports. */
const SUPERVISOR_REPORT_TTL_SECONDS = 20;

function supervisorKey(prefix: string, id: string): string {
  return `${prefix}:supervisor:${id}`;
}

export interface SupervisorPublisher {
  /** Writes now (after a change) as well as every interval. */
  publish(): void;
  /** Stops and deletes the key (bounded: Redis may be gone). */
  stop(): Promise<void>;
}

/**
 * Publishes `report()` every interval. Errors go to `onError` (Redis restarting is expected); a
 * write never waits for a Redis that is down: the connection should fail fast (offline queue off).
 */
export function startSupervisorPublisher(options: {
  redis: Redis;
  prefix: string;
  id: string;
  report: () => Omit<SupervisorReport, 'updatedAt'>;
  intervalMs?: number;
  onError?: (error: Error) => void;
}): SupervisorPublisher {
  const key = supervisorKey(options.prefix, options.id);
  let stopped = false;
  const publish = () => {
    if (stopped) return;
    const value = supervisorReportSchema.parse({
      ...options.report(),
      updatedAt: new Date().toISOString(),
    });
    options.redis
      .set(key, JSON.stringify(value), 'EX', SUPERVISOR_REPORT_TTL_SECONDS)
      .catch((error: Error) => options.onError?.(error));
  };
  publish();
  const timer = setInterval(publish, options.intervalMs ?? SUPERVISOR_REPORT_INTERVAL_MS);
  timer.unref();
  return {
    publish,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.race([
        options.redis.del(key).catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
      ]);
    },
  };
}

/** Every supervisor report under this prefix (unreadable ones are skipped). */
export async function listSupervisorReports(
  redis: Redis,
  prefix: string,
): Promise<SupervisorReport[]> {
  const keys = await scanKeys(redis, prefix, 'supervisor');
  if (keys.length === 0) return [];
  const values = await redis.mget(...keys.slice(0, 500));
  const reports: SupervisorReport[] = [];
  for (const value of values) {
    if (!value) continue;
    try {
      const parsed = supervisorReportSchema.safeParse(JSON.parse(value));
      if (parsed.success) reports.push(parsed.data);
    } catch {
      // Not ours: skipped.
    }
  }
  return reports.sort((a, b) => a.supervisor.localeCompare(b.supervisor));
}

/** The processes that are not running, one line each, for health checks and the console. */
export function serviceProblems(reports: readonly SupervisorReport[]): string[] {
  const problems: string[] = [];
  for (const report of reports)
    for (const s of report.services.filter((x: ServiceStatus) => x.state !== 'running'))
      problems.push(
        `${s.name}: ${s.state}${s.lastExit ? ` (${s.lastExit.reason})` : ''}${
          s.nextStartAt ? `, next start ${s.nextStartAt}` : ''
        }`,
      );
  return problems;
}
