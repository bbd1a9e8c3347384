// Device cookies (OWASP "Blocking Brute Force Attacks"): a successful sign-in gives that browser a
// cookie naming the account, which lets it through the account's lockout (lib/server/auth/auth-limits.ts)
// while everyone else waits. It is signed with the auth secret, expires, and is bound to the
// account's id and to its current password hash, so changing the password revokes every one.
// A cookie for another account, a forged, expired or revoked one is simply not trusted.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SignInAccount } from '../db/accounts/get-sign-in-account';

export const DEVICE_COOKIE = 'perfjudge_device';
/** How long a device cookie is believed after the sign-in that issued it. */
export const DEVICE_COOKIE_DAYS = 30;
const VERSION = 'v1';

function mac(secret: string, userId: string, deviceId: string, expires: number, hash: string) {
  const password = createHash('sha256').update(hash).digest('base64url');
  return createHmac('sha256', secret)
    .update(`perfjudge-device|${VERSION}|${userId}|${deviceId}|${expires}|${password}`)
    .digest('base64url');
}

/** A new cookie value for `account`, issued now. */
export function issueDeviceCookie(
  secret: string,
  account: SignInAccount,
  now = Date.now(),
): string | null {
  if (!account.passwordHash) return null;
  const deviceId = randomBytes(16).toString('base64url');
  const expires = Math.floor(now / 1000) + DEVICE_COOKIE_DAYS * 24 * 3600;
  const signature = mac(secret, account.id, deviceId, expires, account.passwordHash);
  return [VERSION, account.id, deviceId, expires, signature].join('.');
}

/** The cookie's device id when it is a valid, unexpired cookie of `account`; else null. */
export function trustedDeviceId(
  secret: string,
  cookie: string | null | undefined,
  account: SignInAccount | null,
  now = Date.now(),
): string | null {
  if (!cookie || cookie.length > 512 || !account?.passwordHash) return null;
  const [version, userId, deviceId, expiresText, signature, ...rest] = cookie.split('.');
  if (version !== VERSION || rest.length > 0 || !userId || !deviceId || !signature) return null;
  const expires = Number(expiresText);
  if (!Number.isInteger(expires) || expires * 1000 <= now) return null;
  if (userId !== account.id) return null;
  const expected = Buffer.from(mac(secret, userId, deviceId, expires, account.passwordHash));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return deviceId;
}
