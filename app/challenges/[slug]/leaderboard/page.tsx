// /challenges/<slug>/leaderboard: the public leaderboard's first page. No session is read, so every
// visitor gets the same page: rendered per request by Next, and served by the production server
// from its cache of at most LEADERBOARD_MAX_AGE_S old copies (lib/server/web/leaderboard-freshness.ts).
import type { Metadata } from 'next';
import { LeaderboardView } from './leaderboard-view';

// Never Next's own cache (ISR): one cache, with one freshness rule, is enough.
export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Leaderboard' };

export default async function LeaderboardPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  return <LeaderboardView slug={slug} page={1} />;
}
