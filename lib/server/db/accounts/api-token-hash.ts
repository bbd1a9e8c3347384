// API tokens: their format and the hash stored in their place. Pure, shared by create and verify.
import { createHash, randomBytes } from 'node:crypto';

const TOKEN_PREFIX = 'pj_';
/** pj_ + 43 base64url characters (32 random bytes). */
const TOKEN_PATTERN = /^pj_[A-Za-z0-9_-]{43}$/;
/** How much of a token is kept in clear, to tell tokens apart in a list. */
const DISPLAY_CHARS = 10;

export function newApiToken(): { token: string; prefix: string; tokenHash: string } {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, prefix: token.slice(0, DISPLAY_CHARS), tokenHash: apiTokenHash(token) };
}

export function isApiTokenShaped(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

/** A token has 256 random bits: a fast unsalted hash is enough, and lets the hash be looked up. */
export function apiTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
