// The public leaderboards in the production server's response cache (lib/server/web/response-cache.ts):
// the pages and the CSV and Markdown exports, one copy per address for every visitor, rendered
// with no header of any visitor's. Freshness (lib/server/web/leaderboard-freshness.ts): a copy older than
// LEADERBOARD_REVALIDATE_S is rendered again in the background while it is still served, and one
// older than LEADERBOARD_MAX_AGE_S is never served.
import { LEADERBOARD_MAX_AGE_S, LEADERBOARD_REVALIDATE_S } from './leaderboard-freshness';
import { leaderboardSlugSchema } from './leaderboard-slug';
import { cachingResponses, type CachePolicy, type ResponseCacheOptions } from './response-cache';

/** A public leaderboard address: /challenges/<slug>/leaderboard[/<n>|/export.csv|/export.md]. */
export function isLeaderboardPath(path: string): boolean {
  const m =
    /^\/challenges\/([^/]+)\/leaderboard(?:\/(?:[1-9][0-9]{0,3}|export\.csv|export\.md))?$/.exec(
      path,
    );
  return m !== null && leaderboardSlugSchema.safeParse(m[1]).success;
}

export const leaderboardPolicy: CachePolicy = {
  name: 'leaderboard',
  handles: isLeaderboardPath,
  address: (_req, path) => ({
    key: path,
    freshS: LEADERBOARD_REVALIDATE_S,
    maxAgeS: LEADERBOARD_MAX_AGE_S,
  }),
};

/** The server's listener with only the leaderboards cached. */
export function cachingLeaderboards(
  next: Parameters<typeof cachingResponses>[0],
  options: ResponseCacheOptions = {},
) {
  return cachingResponses(next, [leaderboardPolicy], options);
}
