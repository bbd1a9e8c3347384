// The web process's Redis connection for counters (rate limits, remembered sign-in addresses) and
// live progress reads, kept on globalThis like lib/server/web/services.ts's: here, below lib/server/web, because
// sign-in (lib/server/auth) counts on it too.
import { Redis } from 'ioredis';
import { redisUrl } from './connection';

const globalForCounters = globalThis as typeof globalThis & { perfjudgeCounters?: Redis };

/** A Redis error of a web process's connection: logged, never thrown at a request. */
export const logWebRedisError = (error: Error) => console.error(`web: redis: ${error.message}`);

/**
 * For rate-limit counters and live progress reads: a command sent while the connection is still
 * opening waits for it (the HTTP connection would refuse it), but gives up after one retry and
 * two seconds, so a request never hangs on a Redis outage.
 */
export function webCounters(): Redis {
  if (!globalForCounters.perfjudgeCounters) {
    const redis = new Redis(redisUrl(), {
      connectionName: 'perfjudge-web-counters',
      maxRetriesPerRequest: 1,
      commandTimeout: 2_000,
    });
    redis.on('error', logWebRedisError);
    globalForCounters.perfjudgeCounters = redis;
  }
  return globalForCounters.perfjudgeCounters;
}
