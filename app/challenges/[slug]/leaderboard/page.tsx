// /challenges/<slug>/leaderboard: the public leaderboard's first page. No session is read, so it is
// rendered once and served from the ISR cache, rebuilt at most every 5 seconds.
import type { Metadata } from 'next';
import { LeaderboardView } from './leaderboard-view';

export const revalidate = 5;
/** Nothing is rendered at build time (no database then); each challenge is cached on its first hit. */
export function generateStaticParams(): { slug: string }[] {
  return [];
}

export const metadata: Metadata = { title: 'Leaderboard' };

export default async function LeaderboardPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  return <LeaderboardView slug={slug} page={1} />;
}
