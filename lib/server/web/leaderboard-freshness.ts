// How old a leaderboard page (or export) may be: every visitor, even the first after a quiet
// spell, sees every recorded score and disqualification within LEADERBOARD_MAX_AGE_S plus one
// render; the bench (`web-latency`) measures it.
// - The live leaderboard and its exports render per request in Next; the production server
//   (scripts/web-server.ts) keeps each response in memory (lib/server/web/leaderboard-response-cache.ts):
//   a copy older than LEADERBOARD_REVALIDATE_S is rendered again in the background while it is
//   still served, and a copy older than LEADERBOARD_MAX_AGE_S is never served (the request waits).
// - The final leaderboard's pages and exports are cached by Next (ISR) by the same rule:
//   `revalidate = 1` and next.config's `expireTime`. Segment config and next.config need
//   literals: keep them equal to these numbers.
export const LEADERBOARD_REVALIDATE_S = 1;
export const LEADERBOARD_MAX_AGE_S = 3;
