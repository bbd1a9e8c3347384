// The web process's long-lived connections: one Redis connection and one queue set, kept on
// globalThis so a dev server's hot reloads reuse them (as lib/db/client.ts does for Prisma).
import { Redis } from 'ioredis';
import { createHttpConnection, queuePrefix, redisUrl } from '../queue/connection';
import { createQueueSet, type QueueSet } from '../queue/producer';

const globalForWeb = globalThis as typeof globalThis & {
  perfjudgeRedis?: Redis;
  perfjudgeCounters?: Redis;
  perfjudgeQueues?: QueueSet;
};

const logRedisError = (error: Error) => console.error(`web: redis: ${error.message}`);

/** Fails fast while Redis is down (an HTTP request must not hang on it). */
export function webRedis(): Redis {
  globalForWeb.perfjudgeRedis ??= createHttpConnection({
    connectionName: 'perfjudge-web',
    onError: logRedisError,
  });
  return globalForWeb.perfjudgeRedis;
}

export function webQueues(): QueueSet {
  globalForWeb.perfjudgeQueues ??= createQueueSet(
    { connection: webRedis(), prefix: queuePrefix(), enqueueTimeoutMs: 3_000 },
    logRedisError,
  );
  return globalForWeb.perfjudgeQueues;
}

/**
 * For rate-limit counters and live progress reads: a command sent while the connection is still
 * opening waits for it (the HTTP connection would refuse it), but gives up after one retry and
 * two seconds, so a request never hangs on a Redis outage.
 */
export function webCounters(): Redis {
  if (!globalForWeb.perfjudgeCounters) {
    const redis = new Redis(redisUrl(), {
      connectionName: 'perfjudge-web-counters',
      maxRetriesPerRequest: 1,
      commandTimeout: 2_000,
    });
    redis.on('error', logRedisError);
    globalForWeb.perfjudgeCounters = redis;
  }
  return globalForWeb.perfjudgeCounters;
}
