// /challenges/<slug>/leaderboard/<n>: page n ≥ 2 of the public leaderboard, rendered and cached
// like the first (page.tsx).
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { z } from 'zod';
import { LeaderboardView } from '../leaderboard-view';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Leaderboard' };

/** Page 1 lives at the leaderboard's own address; at most 100,000 rows make 1,000 pages. */
const pageSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,3}$/)
  .transform(Number)
  .pipe(z.number().min(2));

export default async function LeaderboardPageN({
  params,
}: {
  params: Promise<{ slug: string; page: string }>;
}) {
  const { slug, page } = await params;
  const parsed = pageSchema.safeParse(page);
  if (!parsed.success) notFound();
  return <LeaderboardView slug={slug} page={parsed.data} />;
}
