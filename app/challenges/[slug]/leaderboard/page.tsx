// The public leaderboard: everyone's best accepted submission, per-target times and speedups with
// their intervals, statistical ties, and the Markdown and CSV exports. No session is read, so the
// page is rendered once and served from the ISR cache, rebuilt at most every 5 seconds.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { db } from '../../../../lib/db/client';
import { NotFoundError } from '../../../../lib/db/errors';
import {
  getLeaderboardTable,
  type LeaderboardTable,
  type LeaderboardTargetCell,
} from '../../../../lib/db/get-leaderboard-table';
import { formatDate, formatMs, formatScore, formatSpeedup } from '../../../../lib/web/format';
import { cellLabels } from '../../../../lib/web/leaderboard-export';
import { leaderboardSlugSchema } from '../../../../lib/web/leaderboard-slug';
import { TIE_RULE } from '../../../../lib/web/leaderboard-ties';

export const revalidate = 5;
/** Nothing is rendered at build time (no database then); each challenge is cached on its first hit. */
export function generateStaticParams(): { slug: string }[] {
  return [];
}

export const metadata: Metadata = { title: 'Leaderboard' };

const FORMULA_WORDS = {
  SUM: "the sum of the targets' speedups",
  GEOMEAN: "the geometric mean of the targets' speedups",
} as const;

async function load(slug: string): Promise<LeaderboardTable> {
  const parsed = leaderboardSlugSchema.safeParse(slug);
  if (!parsed.success) notFound();
  try {
    return await getLeaderboardTable(db(), { challengeSlug: parsed.data });
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}

function interval(low: number | null, high: number | null): string | null {
  return low === null || high === null ? null : `${low.toFixed(2)}–${high.toFixed(2)}`;
}

/** Time and speedup of one target; the interval on a second, smaller line keeps columns narrow. */
function TargetCells({ cell }: { cell: LeaderboardTargetCell | undefined }) {
  if (!cell)
    return (
      <>
        <td className="num muted">–</td>
        <td className="num muted">–</td>
      </>
    );
  const ci = interval(cell.ciLow, cell.ciHigh);
  const labels = cellLabels(cell);
  return (
    <>
      <td className="num">{formatMs(cell.solutionMs)}</td>
      <td className="num">
        {formatSpeedup(cell.speedup)}
        {ci && <small className="muted"> ±{ci}</small>}
        {labels.map((l) => (
          <span key={l} className="badge warn" title={`Measured in ${l}, not on the real target`}>
            {l}
          </span>
        ))}
      </td>
    </>
  );
}

export default async function LeaderboardPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const table = await load(slug);
  const base = `/challenges/${table.challenge.slug}/leaderboard`;
  const labelled = table.rows.some((r) =>
    Object.values(r.targets).some((c) => c.emulated || c.devMode),
  );
  return (
    <>
      <div className="spread">
        <h1>
          <Link href={`/challenges/${table.challenge.slug}`}>{table.challenge.title}</Link>:
          leaderboard
        </h1>
        <div className="row">
          <a className="btn secondary" href={`${base}/export.md`} download>
            Markdown
          </a>
          <a className="btn secondary" href={`${base}/export.csv`} download>
            CSV
          </a>
        </div>
      </div>
      <p className="muted small">
        Each contestant&apos;s best accepted submission. Score:{' '}
        {FORMULA_WORDS[table.challenge.formula]}; the interval beside a speedup is its 95%
        confidence interval. {TIE_RULE} As of {formatDate(new Date())}, updated every few seconds.
      </p>
      {labelled && (
        <p className="notice warn small">
          Figures marked <span className="badge warn">emulated</span> or{' '}
          <span className="badge warn">dev mode</span> were not measured on the target&apos;s real
          hardware and operating system.
        </p>
      )}
      {table.rows.length === 0 ? (
        <p className="card empty">
          No accepted submission yet.{' '}
          <Link href={`/challenges/${table.challenge.slug}`}>Read the challenge</Link> and be the
          first.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="leaderboard">
            <thead>
              <tr>
                <th rowSpan={2} className="num">
                  #
                </th>
                <th rowSpan={2}>Contestant</th>
                {table.targets.map((t) => (
                  <th key={t} colSpan={2}>
                    {t}
                  </th>
                ))}
                <th rowSpan={2} className="num">
                  Score
                </th>
                <th rowSpan={2} className="num" title="All of the contestant's submissions">
                  Subm.
                </th>
                <th rowSpan={2}>Last improvement</th>
              </tr>
              <tr>
                {table.targets.map((t) => (
                  <TargetHeads key={t} />
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((r, i) => (
                <tr key={i}>
                  <td className="num">
                    {r.rank}
                    {r.tiedWithAbove && (
                      <span className="badge info" title="Statistically tied with the row above">
                        ≈
                      </span>
                    )}
                  </td>
                  <td>
                    <span className="ellipsis" title={r.userName}>
                      {r.userName}
                    </span>
                  </td>
                  {table.targets.map((t) => (
                    <TargetCells key={t} cell={r.targets[t]} />
                  ))}
                  <td className="num">
                    <b>{formatScore(r.score)}</b>
                    <small className="muted">
                      {' '}
                      {formatScore(r.scoreLow)}–{formatScore(r.scoreHigh)}
                    </small>
                  </td>
                  <td className="num">{r.submissions}</td>
                  <td className="nowrap small">{formatDate(r.submittedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted small">
        {table.rows.length} contestant{table.rows.length === 1 ? '' : 's'} · times are wall-clock
        medians of the solution&apos;s timed runs on each target.
      </p>
    </>
  );
}

function TargetHeads() {
  return (
    <>
      <th className="num">Time</th>
      <th className="num">Speedup</th>
    </>
  );
}
