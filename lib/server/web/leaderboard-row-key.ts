// The key that marks a contestant's row on the public leaderboards, so the browser can highlight
// the signed-in contestant's own row without the page publishing anyone's internal user id: an
// HMAC of the user id and the challenge under a server secret. It reveals nothing about the user,
// differs between challenges (rows cannot be linked across contests by it), and only the server
// can tell a contestant their own (app/challenges/[slug]/leaderboard/own-row).
import 'server-only';
import { createHmac, randomBytes } from 'node:crypto';
import { env } from '../../core/config/env';

let secret: string | undefined;

/**
 * The auth secret, so that every web process gives a user the same key; without one (sessions
 * then end on restart too) a random secret of this process.
 */
function rowKeySecret(): string {
  secret ??= env().PERFJUDGE_AUTH_SECRET ?? randomBytes(32).toString('base64url');
  return secret;
}

/** 16 base64url characters (96 bits): unguessable, and short in a 1,000-row page. */
export function leaderboardRowKey(challengeSlug: string, userId: string): string {
  return createHmac('sha256', rowKeySecret())
    .update(`leaderboard-row\0${challengeSlug}\0${userId}`)
    .digest('base64url')
    .slice(0, 16);
}
