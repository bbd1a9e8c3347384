// A Better Auth plugin that guards e-mail + password sign-in (listed after the two-factor plugin,
// so its after-hook sees a session only once the second factor was given):
// - before each attempt: the limits of lib/server/auth/auth-limits.ts, with the browser's device cookie
//   (lib/server/auth/device-cookie.ts) letting it through the account's lockout;
// - after a wrong password: an audit record for the account;
// - after a session is made: the account's failures forgiven, a fresh device cookie, an audit
//   record, and — when there were several failures since the last sign-in — a report of them in
//   the answer (`signInReport`), which the sign-in form shows the owner.
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware } from 'better-auth/api';
import { db } from '../db/client';
import { getSignInAccount } from '../db/accounts/get-sign-in-account';
import { recordFailedSignIn, recordSignIn } from '../db/accounts/record-sign-in';
import { clientAddressOf } from '../../core/net/client-address';
import {
  accountEmailSchema,
  deviceMayPass,
  forgiveFailures,
  limitSignIn,
  type LimitRefusal,
} from './auth-limits';
import {
  DEVICE_COOKIE,
  DEVICE_COOKIE_DAYS,
  issueDeviceCookie,
  trustedDeviceId,
} from './device-cookie';

const SIGN_IN = '/sign-in/email';
/** Where a session is made for someone who proved who they are. */
const SIGN_IN_DONE = new Set([
  SIGN_IN,
  '/sign-up/email',
  '/two-factor/verify-totp',
  '/two-factor/verify-backup-code',
]);
/** A new password: the old device cookies stopped working, this browser gets a new one. */
const CHANGE_PASSWORD = '/change-password';

export function tooManyRequests(refusal: LimitRefusal): APIError {
  const seconds = String(refusal.retryAfter);
  return new APIError(
    'TOO_MANY_REQUESTS',
    { message: refusal.message, code: 'RATE_LIMITED' },
    { 'Retry-After': seconds, 'X-Retry-After': seconds },
  );
}

function emailOf(body: unknown): unknown {
  return body && typeof body === 'object' ? (body as { email?: unknown }).email : undefined;
}

type GuardContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

interface GuardOptions {
  secureCookies: boolean;
  signInsPerAddressPerMinute: number;
}

async function checkAttempt(ctx: GuardContext, options: GuardOptions): Promise<void> {
  const email = accountEmailSchema.safeParse(emailOf(ctx.body));
  const cookie = ctx.getCookie(DEVICE_COOKIE);
  const account = cookie && email.success ? await getSignInAccount(db(), email.data) : null;
  const deviceId = trustedDeviceId(ctx.context.secret, cookie, account);
  const trusted = deviceId !== null && (await deviceMayPass(deviceId));
  const refusal = await limitSignIn(clientAddressOf(ctx.headers), emailOf(ctx.body), {
    trustedDevice: trusted,
    perAddressPerMinute: options.signInsPerAddressPerMinute,
  });
  if (refusal) throw tooManyRequests(refusal);
}

async function giveDeviceCookie(ctx: GuardContext, email: string, secure: boolean) {
  const account = await getSignInAccount(db(), email);
  const value = account && issueDeviceCookie(ctx.context.secret, account);
  if (!value) return;
  ctx.setCookie(DEVICE_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    // Only the sign-in endpoints ever read it.
    path: '/api/auth',
    maxAge: DEVICE_COOKIE_DAYS * 24 * 3600,
  });
}

async function afterSignIn(ctx: GuardContext, secure: boolean) {
  const session = ctx.context.newSession;
  const address = clientAddressOf(ctx.headers);
  if (!session) {
    const returned = ctx.context.returned;
    const wrongPassword = returned instanceof APIError && returned.statusCode === 401;
    if (ctx.path !== SIGN_IN || !wrongPassword) return;
    const email = accountEmailSchema.safeParse(emailOf(ctx.body));
    const account = email.success ? await getSignInAccount(db(), email.data) : null;
    if (account) await recordFailedSignIn(db(), account.id, address);
    return;
  }
  const email = session.user.email;
  await forgiveFailures(email);
  await giveDeviceCookie(ctx, email, secure);
  const report = await recordSignIn(db(), session.user.id, address);
  const returned = ctx.context.returned;
  if (report && returned && typeof returned === 'object' && !(returned instanceof Response))
    return ctx.json({ ...(returned as Record<string, unknown>), signInReport: report });
}

export function signInGuard(options: GuardOptions) {
  return {
    id: 'perfjudge-sign-in-guard',
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === SIGN_IN,
          handler: createAuthMiddleware((ctx) => checkAttempt(ctx, options)),
        },
      ],
      after: [
        {
          matcher: (ctx) => SIGN_IN_DONE.has(ctx.path ?? ''),
          handler: createAuthMiddleware((ctx) => afterSignIn(ctx, options.secureCookies)),
        },
        {
          matcher: (ctx) => ctx.path === CHANGE_PASSWORD,
          handler: createAuthMiddleware(async (ctx) => {
            const user = ctx.context.session?.user ?? ctx.context.newSession?.user;
            if (user && !(ctx.context.returned instanceof APIError))
              await giveDeviceCookie(ctx, user.email, options.secureCookies);
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
