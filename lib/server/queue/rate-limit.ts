// Rate limits shared by every web process (counters in Redis, rate-limiter-flexible): sign-in and
// sign-up attempts per client address (through Better Auth), submissions per contestant.
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { queuePrefix } from './connection';
import { webCounters } from './web-counters';

export interface RateRule {
  /** Seconds. */
  window: number;
  max: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Seconds until another request is allowed; null when allowed. */
  retryAfter: number | null;
}

const limiters = new Map<string, RateLimiterRedis>();

function limiter(name: string, rule: RateRule): RateLimiterRedis {
  const key = `${name}:${rule.window}:${rule.max}`;
  let l = limiters.get(key);
  if (!l) {
    l = new RateLimiterRedis({
      storeClient: webCounters(),
      keyPrefix: `${queuePrefix()}:rl:${key}`,
      points: rule.max,
      duration: rule.window,
    });
    limiters.set(key, l);
  }
  return l;
}

/** Counts one request against `key`; refuses it once `rule.max` were made within `rule.window`. */
export async function consumeRate(
  name: string,
  key: string,
  rule: RateRule,
): Promise<RateDecision> {
  try {
    await limiter(name, rule).consume(key);
    return { allowed: true, retryAfter: null };
  } catch (error) {
    if (error instanceof RateLimiterRes)
      return { allowed: false, retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
    // Redis unreachable: let the request through rather than lock everyone out.
    console.error(`web: rate limit ${name} not checked: ${(error as Error).message}`);
    return { allowed: true, retryAfter: null };
  }
}

/** Submissions a contestant may send in a burst, on top of the manifest's hourly quota. */
export const SUBMIT_BURST: RateRule = { window: 60, max: 5 };
