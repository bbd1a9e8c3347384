// /challenges/<slug>/final: the contest's result once the organizers published the final
// evaluation: places (shared places shown as "2=" with the reason), per-target speedups with their
// intervals, the combined score with its interval, how places were decided and at what error rate,
// and the CSV and Markdown exports. Before publication it says where the evaluation stands.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { FinalRankingTable, RankingWarnings } from '../../../_components/final-ranking-table';
import { db } from '../../../../lib/server/db/client';
import { getRankingWarnings } from '../../../../lib/server/db/leaderboard/get-ranking-warnings';
import { NotFoundError } from '../../../../lib/server/db/errors';
import { formatDate } from '../../../../lib/server/web/format';
import { errorRateSentence, formatErrorRate } from '../../../../lib/server/web/final-words';
import { leaderboardSlugSchema } from '../../../../lib/server/web/leaderboard-slug';
import { FinalBanner } from '../final-banner';
import { loadPublishedFinal, type PublishedFinal } from './load-final';

// Cached like the leaderboard (lib/server/web/leaderboard-freshness.ts; segment config must be a literal).
export const revalidate = 1;
export function generateStaticParams(): { slug: string }[] {
  return [];
}

export const metadata: Metadata = { title: 'Final result' };

async function load(slug: string): Promise<PublishedFinal> {
  if (!leaderboardSlugSchema.safeParse(slug).success) notFound();
  try {
    return await loadPublishedFinal(slug);
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}

export default async function FinalResultPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { contest, table } = await load(slug);
  const base = `/challenges/${contest.slug}`;
  if (!table)
    return (
      <>
        <h1>
          <Link href={base}>{contest.title}</Link>: final result
        </h1>
        <FinalBanner slug={contest.slug} where="final" />
        <p>
          The <Link href={`${base}/leaderboard`}>provisional leaderboard</Link> ranks every
          contestant&apos;s best accepted submission as it was judged when it arrived.
        </p>
      </>
    );
  const shared = table.rows.some((r) => r.tiedWith.length > 0);
  const warnings = await getRankingWarnings(db(), table.evaluationId);
  return (
    <>
      <div className="spread">
        <h1>
          <Link href={base}>{contest.title}</Link>: final result
        </h1>
        <div className="row">
          <a className="btn secondary" href={`${base}/final/export.md`} download>
            Markdown
          </a>
          <a className="btn secondary" href={`${base}/final/export.csv`} download>
            CSV
          </a>
        </div>
      </div>
      <p className="muted small">
        Published {formatDate(table.publishedAt)}. Each finalist&apos;s selected submission and the
        baseline were timed together in {table.rounds} interleaved rounds per target
        {table.spreadAcrossHosts ? ', spread across hosts' : ' on one host'}; the range under a
        figure is its interval.{' '}
        {shared && 'A place marked “=” is shared: the judge cannot tell those finalists apart. '}
        The <Link href={`${base}/leaderboard`}>provisional leaderboard</Link> stays for the record.
      </p>
      <FinalRankingTable table={table} />
      <RankingWarnings warnings={warnings} />
      <section className="card" aria-labelledby="method-h" data-testid="final-method">
        <h2 id="method-h" style={{ marginTop: 0 }}>
          How places were decided
        </h2>
        <p>{table.method}</p>
        <p data-testid="final-error-rate">
          <strong>Error rate {formatErrorRate(table.errorRate)}.</strong>{' '}
          {errorRateSentence(table.errorRate)}
        </p>
      </section>
    </>
  );
}
