// Redis connections for BullMQ: workers wait out a Redis outage, HTTP-side producers fail fast.
import { Redis, type RedisOptions } from 'ioredis';
import { env } from '../../core/config/env';

export interface QueueConnectionOptions {
  /** Default: REDIS_URL. */
  url?: string;
  /** Shown in `CLIENT LIST`, so an operator can tell runners, scorers and web servers apart. */
  connectionName?: string;
  /** Where connection errors go (ioredis emits one per failed reconnect); default: stderr. */
  onError?: (error: Error) => void;
}

/** The BullMQ key prefix every queue, job and heartbeat key of this deployment starts with. */
export function queuePrefix(): string {
  return env().PERFJUDGE_QUEUE_PREFIX;
}

export function redisUrl(): string {
  return env().REDIS_URL;
}

function connect(options: QueueConnectionOptions, extra: RedisOptions): Redis {
  const redis = new Redis(options.url ?? redisUrl(), {
    ...(options.connectionName ? { connectionName: options.connectionName } : {}),
    ...extra,
  });
  // Without a listener ioredis reports every reconnect failure as an unhandled error event.
  const onError =
    options.onError ?? ((error: Error) => process.stderr.write(`redis: ${error.message}\n`));
  redis.on('error', onError);
  return redis;
}

/**
 * For BullMQ Workers and QueueEvents (long-lived processes): commands wait for Redis to come back
 * instead of failing after 20 retries, which BullMQ requires for its blocking commands.
 */
export function createWorkerConnection(options: QueueConnectionOptions = {}): Redis {
  return connect(options, { maxRetriesPerRequest: null });
}

/**
 * For Queues used while answering an HTTP request: with Redis down a command fails at once rather
 * than piling up in the offline queue and holding the request open.
 */
export function createHttpConnection(options: QueueConnectionOptions = {}): Redis {
  return connect(options, { enableOfflineQueue: false });
}

/** Every key under `prefix:kind:*` (SCAN, so Redis is never blocked); the prefix is taken literally. */
export async function scanKeys(redis: Redis, prefix: string, kind: string): Promise<string[]> {
  const literal = prefix.replace(/[*?[\]\\]/g, '\\$&');
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${literal}:${kind}:*`, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}
