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

/** SCAN and UNLINK inside one script: Redis runs it atomically, as it runs FLUSHALL. */
const UNLINK_MATCHING = `
local cursor = "0"
local deleted = 0
repeat
  local reply = redis.call("SCAN", cursor, "MATCH", ARGV[1], "COUNT", 1000)
  cursor = reply[1]
  for _, key in ipairs(reply[2]) do
    deleted = deleted + redis.call("UNLINK", key)
  end
until cursor == "0"
return deleted`;

/**
 * What FLUSHALL does to the keys matching `pattern`, and only to them: all gone at one instant,
 * no client seeing some of them deleted and others not (the chaos drill's Redis loss on a server
 * other tests share). Blocks the server while it runs: for a test's few thousand keys, milliseconds.
 */
export async function flushKeys(redis: Redis, pattern: string): Promise<number> {
  return Number(await redis.eval(UNLINK_MATCHING, 0, pattern));
}
