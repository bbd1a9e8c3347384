// Accounts for the web app with Better Auth: e-mail + password sign-up and sign-in (our scrypt hash,
// lib/core/access/password.ts), database sessions in PostgreSQL, two-factor sign-in with an
// authenticator app (TOTP, the twoFactor plugin), sign-in guarded by lib/server/auth/sign-in-guard.ts and
// sign-up rate-limited in Redis (lib/server/auth/auth-limits.ts).
// The organizer role is a user field nobody can set through sign-up (input: false).
import { randomBytes } from 'node:crypto';
import { betterAuth } from 'better-auth';
import { createAuthMiddleware } from 'better-auth/api';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { nextCookies } from 'better-auth/next-js';
import { twoFactor } from 'better-auth/plugins/two-factor';
import { env } from '../../core/config/env';
import { db } from '../db/client';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../core/access/password-limits';
import { CLIENT_ADDRESS_HEADER, clientAddressOf } from '../../core/net/client-address';
import { consumeRate } from '../queue/rate-limit';
import { limitSignUp } from './auth-limits';
import { signInGuard, tooManyRequests } from './sign-in-guard';
import { hashPassword, verifyPassword } from '../../core/access/password';

/** Seconds a signed session cookie stands in for the session's row (see createAuth). */
const SESSION_COOKIE_CACHE_S = 60;

function authSecret(): string {
  const secret = env().PERFJUDGE_AUTH_SECRET;
  if (secret) return secret;
  console.warn(
    'web: PERFJUDGE_AUTH_SECRET is not set: using a random one, so sessions end when the server restarts',
  );
  return randomBytes(32).toString('base64url');
}

function createAuth() {
  const config = env();
  const secureCookies = config.PERFJUDGE_PUBLIC_URL.startsWith('https:');
  return betterAuth({
    appName: 'perfjudge',
    baseURL: config.PERFJUDGE_PUBLIC_URL,
    secret: authSecret(),
    database: prismaAdapter(db(), { provider: 'postgresql' }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: PASSWORD_MIN,
      maxPasswordLength: PASSWORD_MAX,
      autoSignIn: true,
      password: {
        hash: hashPassword,
        verify: ({ hash, password }) => verifyPassword(password, hash),
      },
    },
    user: {
      additionalFields: {
        role: { type: 'string', input: false, defaultValue: 'CONTESTANT', required: false },
      },
    },
    session: {
      expiresIn: 30 * 24 * 3600,
      updateAge: 24 * 3600,
      // The session and its user in a signed cookie (session_data), so a page reads no session
      // from PostgreSQL for this long after the last check: most of a signed-in page's database
      // time under load. Signing out expires that cookie at once in the browser that signs out;
      // a session ended any other way (deleted, or its user's role changed) is believed for up to
      // this long by a browser still holding the cookie (docs/security.md).
      cookieCache: { enabled: true, maxAge: SESSION_COOKIE_CACHE_S },
    },
    // Every endpoint per address; sign-in and sign-up have their own rules in the hooks below.
    rateLimit: {
      enabled: true,
      window: 60,
      max: 100,
      customRules: { '/sign-in/email': false, '/sign-up/email': false },
      // (The two-factor plugin adds 3 per 10 seconds for its own endpoints.)
      customStorage: { consume: (key, rule) => consumeRate('auth', key, rule) },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== '/sign-up/email') return;
        const refusal = await limitSignUp(clientAddressOf(ctx.headers), {
          perAddressPerDay: config.PERFJUDGE_SIGNUPS_PER_ADDRESS_PER_DAY,
          perHour: config.PERFJUDGE_SIGNUPS_PER_HOUR,
        });
        if (refusal) throw tooManyRequests(refusal);
      }),
    },
    advanced: {
      // Ids come from the schema's defaults (cuid), like every other table's.
      database: { generateId: false },
      useSecureCookies: secureCookies,
      // The web server's own header (never a client's X-Forwarded-For): lib/core/net/client-address.ts.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
    },
    // In this order: the guard's after-hook must see the session only once two-factor sign-in is
    // complete, and nextCookies passes on every cookie set before it.
    plugins: [
      twoFactor({ issuer: 'perfjudge' }),
      signInGuard({
        secureCookies,
        signInsPerAddressPerMinute: config.PERFJUDGE_SIGN_INS_PER_ADDRESS_PER_MINUTE,
      }),
      nextCookies(),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const globalForAuth = globalThis as typeof globalThis & { perfjudgeAuth?: Auth };

/** Built on first use, so importing this module reads no environment (builds, tests). */
export function auth(): Auth {
  globalForAuth.perfjudgeAuth ??= createAuth();
  return globalForAuth.perfjudgeAuth;
}
