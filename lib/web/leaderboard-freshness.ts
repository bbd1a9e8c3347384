// How old a leaderboard page (or export) may be. The pages are cached (ISR) with `revalidate = 1`
// and next.config's `expireTime`: a cached copy is rebuilt in the background when a request finds
// it older than 1 s, and a copy older than `expireTime` is never served (the request waits for a
// fresh one). So every visitor, even the first after a quiet spell, sees every recorded score and
// disqualification within this many seconds plus one render; the bench (`web-latency`) measures it.
// Route segment config and next.config need literals: keep them equal to these numbers.
export const LEADERBOARD_REVALIDATE_S = 1;
export const LEADERBOARD_MAX_AGE_S = 3;
