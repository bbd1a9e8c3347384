// /challenges/<slug>/solutions: every accepted submission, public once the organizers published the
// solutions (404 before), best score first, each linking to its page and patch.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { db } from '../../../../lib/server/db/client';
import { NotFoundError } from '../../../../lib/server/db/errors';
import {
  listPublishedSolutions,
  PUBLISHED_SOLUTIONS_LIMIT,
  type PublishedSolutions,
} from '../../../../lib/server/db/contest/list-published-solutions';
import { formatDate, formatScore, formatSpeedup } from '../../../../lib/server/web/format';
import { leaderboardSlugSchema } from '../../../../lib/server/web/leaderboard-slug';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Solutions' };

async function load(slug: string): Promise<PublishedSolutions> {
  const parsed = leaderboardSlugSchema.safeParse(slug);
  if (!parsed.success) notFound();
  try {
    const list = await listPublishedSolutions(db(), { challengeSlug: parsed.data });
    if (!list) notFound();
    return list;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}

export default async function SolutionsPage({ params }: { params: Promise<{ slug: string }> }) {
  const list = await load((await params).slug);
  const base = `/challenges/${list.challenge.slug}`;
  const targets = [...new Set(list.rows.flatMap((r) => r.targets.map((t) => t.target)))].sort();
  return (
    <>
      <h1>
        <Link href={base}>{list.challenge.title}</Link>: solutions
      </h1>
      <p className="muted small">
        Every accepted submission, best score first; <span className="badge ok">counts</span> marks
        the one on the contestant&apos;s leaderboard row. Each page shows the patch and its results.{' '}
        <Link href={`${base}/leaderboard`}>Leaderboard</Link>.
      </p>
      {list.rows.length === 0 ? (
        <p className="card empty">No accepted submission.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="solutions">
            <thead>
              <tr>
                <th>Contestant</th>
                {targets.map((t) => (
                  <th key={t} className="num">
                    {t}
                  </th>
                ))}
                <th className="num">Score</th>
                <th>Submitted</th>
              </tr>
            </thead>
            <tbody>
              {list.rows.map((r) => (
                <tr key={r.submissionId}>
                  <td>
                    <Link
                      href={`/submissions/${r.submissionId}`}
                      className="ellipsis"
                      title={r.userName}
                    >
                      {r.userName}
                    </Link>{' '}
                    {r.counts && <span className="badge ok">counts</span>}
                  </td>
                  {targets.map((t) => (
                    <td key={t} className="num">
                      {formatSpeedup(r.targets.find((x) => x.target === t)?.speedup)}
                    </td>
                  ))}
                  <td className="num">{formatScore(r.score)}</td>
                  <td className="nowrap small">{formatDate(r.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.total > list.rows.length && (
        <p className="small muted">
          The best {PUBLISHED_SOLUTIONS_LIMIT.toLocaleString('en-US')} of {list.total} shown.
        </p>
      )}
    </>
  );
}
