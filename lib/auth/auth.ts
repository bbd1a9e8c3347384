// Accounts for the web app with Better Auth: e-mail + password sign-up and sign-in (our scrypt hash,
// lib/auth/password.ts), database sessions in PostgreSQL, sign-in attempts rate-limited in Redis.
// The organizer role is a user field nobody can set through sign-up (input: false).
import { randomBytes } from 'node:crypto';
import { betterAuth } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { nextCookies } from 'better-auth/next-js';
import { env } from '../config/env';
import { db } from '../db/client';
import { PASSWORD_MAX, PASSWORD_MIN } from '../web/account-forms';
import { consumeRate } from '../web/rate-limit';
import { hashPassword, verifyPassword } from './password';

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
    session: { expiresIn: 30 * 24 * 3600, updateAge: 24 * 3600 },
    rateLimit: {
      enabled: true,
      window: 60,
      max: 100,
      customRules: {
        '/sign-in/email': { window: 60, max: 5 },
        '/sign-up/email': { window: 3600, max: 10 },
      },
      customStorage: { consume: (key, rule) => consumeRate('auth', key, rule) },
    },
    advanced: {
      // Ids come from the schema's defaults (cuid), like every other table's.
      database: { generateId: false },
      useSecureCookies: config.PERFJUDGE_PUBLIC_URL.startsWith('https:'),
    },
    plugins: [nextCookies()],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const globalForAuth = globalThis as typeof globalThis & { perfjudgeAuth?: Auth };

/** Built on first use, so importing this module reads no environment (builds, tests). */
export function auth(): Auth {
  globalForAuth.perfjudgeAuth ??= createAuth();
  return globalForAuth.perfjudgeAuth;
}
