// How often accounts may be signed into and created (Better Auth hooks in lib/auth/auth.ts call
// these; the counters live in Redis, lib/queue/rate-limit.ts). The address is the one the web server
// resolved (lib/net/client-address.ts), never a forwarding header a client wrote.
//
// - Sign-in, per address: a burst of guesses from one place (not at an account its owner signed
//   into from there before).
// - Sign-in, per account: a slow guess from many addresses at one account. It bounds lockout: the
//   window is short, and an address that signed into the account before (the owner's) is exempt,
//   so flooding the organizer's account from elsewhere does not keep the organizer out.
// - Sign-up, per address and for the whole platform per hour: one person cannot make enough
//   accounts to multiply the per-contestant submission quota.
import { z } from 'zod';
import { queuePrefix } from '../queue/connection';
import { addressKey } from '../net/client-address';
import { consumeRate, type RateDecision, type RateRule } from '../queue/rate-limit';
import { webCounters } from '../queue/web-counters';

export const SIGN_IN_PER_ADDRESS: RateRule = { window: 60, max: 5 };
export const SIGN_IN_PER_ACCOUNT: RateRule = { window: 15 * 60, max: 20 };
/** How long an address that signed into an account stays exempt from that account's limit. */
const KNOWN_ADDRESS_SECONDS = 30 * 24 * 3600;
/** Addresses remembered per account (the oldest go first). */
const KNOWN_ADDRESSES_MAX = 20;

export interface SignUpLimits {
  perAddressPerDay: number;
  perHour: number;
}

export interface LimitRefusal {
  /** Seconds until another attempt may succeed. */
  retryAfter: number;
  message: string;
}

const emailSchema = z.string().trim().toLowerCase().max(320);

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return m <= 1 ? 'a minute' : `${m} minutes`;
}

/** A rule whose max is 0 refuses everything (the organizer closed sign-up). */
async function consume(name: string, key: string, rule: RateRule): Promise<RateDecision> {
  if (rule.max === 0) return { allowed: false, retryAfter: rule.window };
  return consumeRate(name, key, rule);
}

function knownKey(email: string): string {
  return `${queuePrefix()}:rl:known-addresses:${email}`;
}

async function isKnownAddress(email: string, address: string): Promise<boolean> {
  try {
    const score = await webCounters().zscore(knownKey(email), addressKey(address));
    return score !== null && Number(score) > Date.now() - KNOWN_ADDRESS_SECONDS * 1000;
  } catch {
    return false;
  }
}

/**
 * Counts one sign-in attempt; a refusal says which limit and when to try again. An address the
 * account's owner signed in from before is exempt from both limits for that account: a classroom
 * behind one address, or a contestant signing in again and again, is not a guesser.
 */
export async function limitSignIn(
  address: string,
  rawEmail: unknown,
): Promise<LimitRefusal | null> {
  const email = emailSchema.safeParse(rawEmail);
  const account = email.success && email.data !== '' ? email.data : null;
  if (account !== null && (await isKnownAddress(account, address))) return null;
  const byAddress = await consume('sign-in-address', addressKey(address), SIGN_IN_PER_ADDRESS);
  if (!byAddress.allowed) {
    const wait = byAddress.retryAfter ?? SIGN_IN_PER_ADDRESS.window;
    return {
      retryAfter: wait,
      message: `Too many sign-in attempts from your address: try again in ${minutes(wait)}.`,
    };
  }
  // Not an e-mail: Better Auth refuses the body itself.
  if (account === null) return null;
  const byAccount = await consume('sign-in-account', account, SIGN_IN_PER_ACCOUNT);
  if (!byAccount.allowed) {
    const wait = byAccount.retryAfter ?? SIGN_IN_PER_ACCOUNT.window;
    return {
      retryAfter: wait,
      message: `Too many sign-in attempts for this account: try again in ${minutes(wait)}.`,
    };
  }
  return null;
}

/** After a successful sign-in (or sign-up): this address is the account owner's from now on. */
export async function rememberSignIn(address: string, rawEmail: unknown): Promise<void> {
  const email = emailSchema.safeParse(rawEmail);
  if (!email.success || email.data === '') return;
  const key = knownKey(email.data);
  try {
    await webCounters()
      .multi()
      .zadd(key, Date.now(), addressKey(address))
      .zremrangebyrank(key, 0, -KNOWN_ADDRESSES_MAX - 1)
      .expire(key, KNOWN_ADDRESS_SECONDS)
      .exec();
  } catch (error) {
    console.error(`web: cannot remember a sign-in address: ${(error as Error).message}`);
  }
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
