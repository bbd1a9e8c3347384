// How often accounts may be signed into and created (the sign-in guard, lib/server/auth/sign-in-guard.ts,
// and the sign-up hook in lib/server/auth/auth.ts call these; the counters live in Redis). The address is
// the one the web server resolved (lib/core/net/client-address.ts), never a forwarding header a client
// wrote. No address is exempt from anything: docs/security.md says why and lists the figures.
//
// - Sign-in, per account: every attempt counts, from wherever it comes. After FREE_FAILURES
//   attempts that did not end in a session, the account waits between attempts, twice as long
//   after each further one, up to BACKOFF_CAP_S. A session resets the count.
// - Sign-in, per address: a burst of guesses at many accounts from one place.
// - A browser holding the account's device cookie (lib/server/auth/device-cookie.ts) skips both waits,
//   within its own allowance; its attempts still count against the account.
// - Sign-up, per address and for the whole platform per hour: one person cannot make enough
//   accounts to multiply the per-contestant submission quota.
import { z } from 'zod';
import { queuePrefix } from '../queue/connection';
import { addressKey } from '../../core/net/client-address';
import { consumeRate, type RateDecision, type RateRule } from '../queue/rate-limit';
import { webCounters } from '../queue/web-counters';

/** The default of PERFJUDGE_SIGN_INS_PER_ADDRESS_PER_MINUTE. */
export const SIGN_IN_PER_ADDRESS: RateRule = { window: 60, max: 5 };
/** Attempts an account gets before it waits between attempts. */
export const FREE_FAILURES = 5;
/** The first wait; each further failure doubles it. */
export const BACKOFF_BASE_S = 30;
/** The longest wait between two attempts at one account. */
export const BACKOFF_CAP_S = 15 * 60;
/** How long an account's count of failures is kept after its last attempt. */
const FAILURE_MEMORY_S = 24 * 3600;
/** Attempts one device cookie may make past a lockout, per window. */
export const SIGN_IN_PER_DEVICE: RateRule = { window: 15 * 60, max: 10 };

export interface SignUpLimits {
  perAddressPerDay: number;
  perHour: number;
}

export interface LimitRefusal {
  /** Seconds until another attempt may succeed. */
  retryAfter: number;
  message: string;
}

export const accountEmailSchema = z.string().trim().toLowerCase().min(1).max(320);

/** Seconds an account waits after its last attempt, once `failures` attempts failed in a row. */
export function backoffSeconds(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(BACKOFF_BASE_S * 2 ** (failures - FREE_FAILURES), BACKOFF_CAP_S);
}

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return m <= 1 ? 'a minute' : `${m} minutes`;
}

/** A rule whose max is 0 refuses everything (the organizer closed sign-up). */
async function consume(name: string, key: string, rule: RateRule): Promise<RateDecision> {
  if (rule.max === 0) return { allowed: false, retryAfter: rule.window };
  return consumeRate(name, key, rule);
}

function failuresKey(email: string): string {
  return `${queuePrefix()}:sign-in-failures:${email}`;
}

// Check and count in one step, so parallel guesses cannot all pass the same check. The wait is
// computed here from the same figures as backoffSeconds (which the unit tests check).
const CHECK_AND_COUNT = `
local f = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local now, free, base, cap, ttl, check = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
if check == '1' and f >= free then
  local wait = math.min(base * 2 ^ (f - free), cap)
  local left = last + wait - now
  if left > 0 then return left end
end
redis.call('HSET', KEYS[1], 'f', f + 1, 'last', now)
redis.call('EXPIRE', KEYS[1], ttl)
return 0`;

/**
 * Counts one attempt at `email`; unless `trusted`, refuses it (and does not count it) while the
 * account waits. Returns the milliseconds left to wait, 0 when the attempt may go ahead.
 */
async function countAccountAttempt(email: string, trusted: boolean): Promise<number> {
  try {
    const left = await webCounters().eval(
      CHECK_AND_COUNT,
      1,
      failuresKey(email),
      String(Date.now()),
      String(FREE_FAILURES),
      String(BACKOFF_BASE_S * 1000),
      String(BACKOFF_CAP_S * 1000),
      String(FAILURE_MEMORY_S),
      trusted ? '0' : '1',
    );
    return Number(left);
  } catch (error) {
    // Redis unreachable: let the attempt through rather than lock everyone out.
    console.error(`web: sign-in back-off not checked: ${(error as Error).message}`);
    return 0;
  }
}

/** A session was made for the account: its failures are forgiven. */
export async function forgiveFailures(email: string): Promise<void> {
  try {
    await webCounters().del(failuresKey(email));
  } catch (error) {
    console.error(`web: cannot reset sign-in failures: ${(error as Error).message}`);
  }
}

/** Whether a device cookie may skip the waits: its own allowance, counted per cookie. */
export async function deviceMayPass(deviceId: string): Promise<boolean> {
  return (await consume('sign-in-device', deviceId, SIGN_IN_PER_DEVICE)).allowed;
}

/**
 * Counts one sign-in attempt against the account (always) and the address (unless the browser
 * holds the account's device cookie); a refusal says which limit and when to try again.
 */
export async function limitSignIn(
  address: string,
  rawEmail: unknown,
  options: { trustedDevice: boolean; perAddressPerMinute: number },
): Promise<LimitRefusal | null> {
  const email = accountEmailSchema.safeParse(rawEmail);
  const trustedDevice = options.trustedDevice;
  if (!trustedDevice) {
    const perAddress: RateRule = { window: 60, max: options.perAddressPerMinute };
    const byAddress = await consume('sign-in-address', addressKey(address), perAddress);
    if (!byAddress.allowed) {
      const wait = byAddress.retryAfter ?? perAddress.window;
      return {
        retryAfter: wait,
        message: `Too many sign-in attempts from your address: try again in ${minutes(wait)}.`,
      };
    }
  }
  // Not an e-mail: Better Auth refuses the body itself.
  if (!email.success) return null;
  const leftMs = await countAccountAttempt(email.data, trustedDevice);
  if (leftMs > 0) {
    const wait = Math.max(1, Math.ceil(leftMs / 1000));
    return {
      retryAfter: wait,
      message:
        `Too many failed sign-in attempts for this account: try again in ${minutes(wait)}. ` +
        'A browser you signed in with before is let through.',
    };
  }
  return null;
}

/** Counts one sign-up attempt against the address's daily and the platform's hourly allowance. */
export async function limitSignUp(
  address: string,
  limits: SignUpLimits,
): Promise<LimitRefusal | null> {
  const perAddress: RateRule = { window: 24 * 3600, max: limits.perAddressPerDay };
  const byAddress = await consume('sign-up-address', addressKey(address), perAddress);
  if (!byAddress.allowed) {
    const wait = byAddress.retryAfter ?? perAddress.window;
    return {
      retryAfter: wait,
      message: `Too many accounts were created from your address: try again in ${minutes(wait)}.`,
    };
  }
  const perHour: RateRule = { window: 3600, max: limits.perHour };
  const overall = await consume('sign-up-all', 'all', perHour);
  if (!overall.allowed) {
    const wait = overall.retryAfter ?? perHour.window;
    return {
      retryAfter: wait,
      message: `Too many accounts were created in the last hour: try again in ${minutes(wait)}.`,
    };
  }
  return null;
}
