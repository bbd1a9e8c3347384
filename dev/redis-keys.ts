// Removing a private queue prefix's keys after a test or a benchmark, so runs leave Redis as found.
import type { Redis } from 'ioredis';

/** Unlinks every key matching `pattern` (SCAN, so Redis is never blocked); returns how many. */
export async function deleteKeys(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
