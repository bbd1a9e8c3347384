// Runner heartbeats: every few seconds a runner writes `<prefix>:runner:<id>` with a short TTL, so
// organizers and the scorer's health check see which runners are alive and what each is judging.
import type { Redis } from 'ioredis';
import { scanKeys } from './connection';
import { runnerHeartbeatSchema, type HostReport, type RunnerHeartbeat } from '../../../contracts';

/**
 * @public Re-exported by runner/service/index.ts, which nothing imports it from: to go there and
 * here together when that folder's exports are cleaned (knip.ts).
 */
export const HEARTBEAT_INTERVAL_MS = 5_000;
/** Four missed beats: a runner stuck this long (or killed) drops out of the list by itself. */
export const HEARTBEAT_TTL_SECONDS = 20;

export function runnerKey(prefix: string, runnerId: string): string {
  return `${prefix}:runner:${runnerId}`;
}

export type CurrentJob = RunnerHeartbeat['currentJob'];

export interface HeartbeatOptions {
  redis: Redis;
  prefix: string;
  /** Everything but seenAt, currentJob and hostReport, which the heartbeat fills in. */
  runner: Omit<RunnerHeartbeat, 'seenAt' | 'currentJob' | 'hostReport'>;
  intervalMs?: number;
  ttlSeconds?: number;
  onError?: (error: Error) => void;
}

export interface Heartbeat {
  setCurrentJob(job: CurrentJob): void;
  /** The host report measured at start-up (runner/service/host-probe.ts), sent with every beat. */
  setHostReport(report: HostReport): void;
  /** Stops beating and deletes the key: a runner that shut down is gone at once, not after the TTL. */
  stop(): Promise<void>;
}

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const key = runnerKey(options.prefix, options.runner.runnerId);
  const ttl = options.ttlSeconds ?? HEARTBEAT_TTL_SECONDS;
  let currentJob: CurrentJob = null;
  let hostReport: HostReport | undefined;
  let stopped = false;
  let inFlight: Promise<unknown> = Promise.resolve();

  const beat = () => {
    if (stopped) return;
    const value = runnerHeartbeatSchema.parse({
      ...options.runner,
      seenAt: new Date().toISOString(),
      currentJob,
      ...(hostReport ? { hostReport } : {}),
    });
    inFlight = options.redis
      .set(key, JSON.stringify(value), 'EX', ttl)
      .catch((error: Error) => options.onError?.(error));
  };
  beat();
  const timer = setInterval(beat, options.intervalMs ?? HEARTBEAT_INTERVAL_MS);

  return {
    setCurrentJob(job) {
      currentJob = job;
      beat();
    },
    setHostReport(report) {
      hostReport = report;
      beat();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await inFlight;
      await options.redis.del(key).catch((error: Error) => options.onError?.(error));
    },
  };
}

export interface RunnerList {
  runners: RunnerHeartbeat[];
  /** Keys whose value did not parse (a runner of another version, or something else entirely). */
  invalid: string[];
}

/** Every live runner under this prefix, sorted by target then id. */
export async function listRunners(redis: Redis, prefix: string): Promise<RunnerList> {
  const keys = await scanKeys(redis, prefix, 'runner');

  const runners: RunnerHeartbeat[] = [];
  const invalid: string[] = [];
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    const values = await redis.mget(...chunk);
    chunk.forEach((key, j) => {
      const value = values[j];
      if (value === null || value === undefined) return; // expired between SCAN and MGET
      let parsed;
      try {
        parsed = runnerHeartbeatSchema.safeParse(JSON.parse(value));
      } catch {
        parsed = null;
      }
      if (parsed?.success) runners.push(parsed.data);
      else invalid.push(key);
    });
  }
  runners.sort((a, b) => a.target.localeCompare(b.target) || a.runnerId.localeCompare(b.runnerId));
  return { runners, invalid };
}
