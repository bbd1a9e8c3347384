// /challenges/<slug>/leaderboard: the public leaderboard's first page. No session is read, so it is
// served from the ISR cache: rebuilt in the background once a second under load, and never served
// older than next.config's expireTime (lib/web/leaderboard-freshness.ts).
import type { Metadata } from 'next';
import { LeaderboardView } from './leaderboard-view';

// LEADERBOARD_REVALIDATE_S (lib/web/leaderboard-freshness.ts); segment config must be a literal.
export const revalidate = 1;
/** Nothing is rendered at build time (no database then); each challenge is cached on its first hit. */
export function generateStaticParams(): { slug: string }[] {
  return [];
}

export const metadata: Metadata = { title: 'Leaderboard' };

export default async function LeaderboardPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  return <LeaderboardView slug={slug} page={1} />;
}
