// The sign-in rules that need no server: the account's back-off, device cookies (bound to one
// account and its password, expiring, unforgeable) and the tests' own RFC 6238 codes.
import { describe, expect, it } from 'vitest';
import {
  BACKOFF_BASE_S,
  BACKOFF_CAP_S,
  backoffSeconds,
  FREE_FAILURES,
} from '../../lib/server/auth/auth-limits';
import {
  DEVICE_COOKIE_DAYS,
  issueDeviceCookie,
  trustedDeviceId,
} from '../../lib/server/auth/device-cookie';
import type { SignInAccount } from '../../lib/server/db/accounts/get-sign-in-account';
import { totp } from '../helpers/totp';

const SECRET = 'a-secret-of-at-least-thirty-two-characters!';
const owner: SignInAccount = { id: 'user-owner', email: 'o@example.test', passwordHash: 'hash-1' };
const other: SignInAccount = { id: 'user-other', email: 'x@example.test', passwordHash: 'hash-2' };

describe('the back-off', () => {
  it('lets the first failures through, then doubles the wait up to the cap', () => {
    for (let f = 0; f < FREE_FAILURES; f++) expect(backoffSeconds(f)).toBe(0);
    expect(backoffSeconds(FREE_FAILURES)).toBe(BACKOFF_BASE_S);
    expect(backoffSeconds(FREE_FAILURES + 1)).toBe(2 * BACKOFF_BASE_S);
    expect(backoffSeconds(FREE_FAILURES + 2)).toBe(4 * BACKOFF_BASE_S);
    const waits = Array.from({ length: 40 }, (_, i) => backoffSeconds(i));
    expect(waits.every((w, i) => i === 0 || w >= waits[i - 1]!)).toBe(true);
    expect(Math.max(...waits)).toBe(BACKOFF_CAP_S);
    // A day of guessing at the cap: a few hundred guesses, not millions.
    expect((24 * 3600) / BACKOFF_CAP_S).toBeLessThanOrEqual(96);
  });
});

describe('device cookies', () => {
  const now = Date.UTC(2026, 11, 5, 12);
  const cookie = issueDeviceCookie(SECRET, owner, now)!;

  it('are trusted for their own account until they expire', () => {
    expect(trustedDeviceId(SECRET, cookie, owner, now + 1000)).toMatch(/^[\w-]{10,}$/);
    const lastDay = now + (DEVICE_COOKIE_DAYS * 24 - 1) * 3600_000;
    expect(trustedDeviceId(SECRET, cookie, owner, lastDay)).not.toBeNull();
    expect(trustedDeviceId(SECRET, cookie, owner, now + DEVICE_COOKIE_DAYS * 86400_000)).toBeNull();
  });

  it("do nothing for another account, after a password change, or with another server's secret", () => {
    expect(trustedDeviceId(SECRET, cookie, other, now)).toBeNull();
    expect(trustedDeviceId(SECRET, cookie, { ...owner, passwordHash: 'hash-new' }, now)).toBeNull();
    expect(trustedDeviceId(`${SECRET}-other`, cookie, owner, now)).toBeNull();
    expect(trustedDeviceId(SECRET, cookie, null, now)).toBeNull();
  });

  it('cannot be edited to name another account or last longer', () => {
    const [v, , device, expires, mac] = cookie.split('.');
    expect(
      trustedDeviceId(SECRET, [v, other.id, device, expires, mac].join('.'), other, now),
    ).toBeNull();
    const later = String(Number(expires) + 86400);
    expect(
      trustedDeviceId(SECRET, [v, owner.id, device, later, mac].join('.'), owner, now),
    ).toBeNull();
    expect(trustedDeviceId(SECRET, `${cookie}x`, owner, now)).toBeNull();
    expect(trustedDeviceId(SECRET, 'garbage', owner, now)).toBeNull();
  });

  it('are not issued for an account without a password', () => {
    expect(issueDeviceCookie(SECRET, { ...owner, passwordHash: null }, now)).toBeNull();
  });
});

describe("the tests' TOTP", () => {
  it('matches RFC 6238 appendix B (SHA-1, the last 6 of 8 digits)', () => {
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'; // "12345678901234567890"
    expect(totp(secret, 59_000)).toBe('287082');
    expect(totp(secret, 1111111109_000)).toBe('081804');
    expect(totp(secret, 2000000000_000)).toBe('279037');
  });
});
