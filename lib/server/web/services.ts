// The web process's long-lived connections: one Redis connection and one queue set, kept on
// globalThis so a dev server's hot reloads reuse them (as lib/server/db/client.ts does for Prisma). The
// counters' connection is lib/server/queue/web-counters.ts.
import type { Redis } from 'ioredis';
import { createHttpConnection, queuePrefix } from '../queue/connection';
import { createQueueSet, type QueueSet } from '../queue/producer';
import { logWebRedisError } from '../queue/web-counters';

const globalForWeb = globalThis as typeof globalThis & {
  perfjudgeRedis?: Redis;
  perfjudgeQueues?: QueueSet;
};

/** Fails fast while Redis is down (an HTTP request must not hang on it). */
export function webRedis(): Redis {
  globalForWeb.perfjudgeRedis ??= createHttpConnection({
    connectionName: 'perfjudge-web',
    onError: logWebRedisError,
  });
  return globalForWeb.perfjudgeRedis;
}

export function webQueues(): QueueSet {
  globalForWeb.perfjudgeQueues ??= createQueueSet(
    { connection: webRedis(), prefix: queuePrefix(), enqueueTimeoutMs: 3_000 },
    logWebRedisError,
  );
  return globalForWeb.perfjudgeQueues;
}
