// The public leaderboard, one page of it: everyone's best accepted submission, per-target times and
// speedups with their intervals, statistical ties, and the Markdown and CSV exports (every row).
// Pages of 100 rows keep the HTML (and the RSC payload inside it) near 200 KB at 1,000 contestants;
// ranks and ties are computed over the whole table, so they do not depend on the page.
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { describeDefinition } from '../../../../lib/core/challenge/benchmark-definition';
import { db } from '../../../../lib/server/db/client';
import { getContestBenchmark } from '../../../../lib/server/db/contest/contest-benchmark';
import { NotFoundError } from '../../../../lib/server/db/errors';
import {
  getLeaderboardTable,
  type LeaderboardTable,
  type LeaderboardTargetCell,
} from '../../../../lib/server/db/leaderboard/get-leaderboard-table';
import {
  formatDate,
  formatDateSeconds,
  formatMs,
  formatScore,
  formatSpeedup,
} from '../../../../lib/server/web/format';
import { cellLabels } from '../../../../lib/server/web/leaderboard-export';
import { leaderboardSlugSchema } from '../../../../lib/server/web/leaderboard-slug';
import { TIE_RULE } from '../../../../lib/core/ranking/leaderboard-ties';
import { LEADERBOARD_MAX_AGE_S } from '../../../../lib/server/web/leaderboard-freshness';
import { leaderboardRowKey } from '../../../../lib/server/web/leaderboard-row-key';
import { CpuTimeNote } from './cpu-time-note';
import { getContestResultState } from '../../../../lib/server/db/contest/get-contest-result-state';
import { FinalBanner } from '../final-banner';
import { OwnRowMarker } from './own-row';

const PAGE_SIZE = 100;

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
function TargetCells({
  cell,
  common,
}: {
  cell: LeaderboardTargetCell | undefined;
  /** Labels the whole column has, shown once in its heading instead. */
  common: string[];
}) {
  if (!cell)
    return (
      <>
        <td className="num muted">–</td>
        <td className="num muted">–</td>
      </>
    );
  const ci = interval(cell.ciLow, cell.ciHigh);
  const labels = cellLabels(cell).filter((l) => !common.includes(l));
  return (
    <>
      <td className="num">{formatMs(cell.solutionMs)}</td>
      <td className="num">
        {formatSpeedup(cell.speedup)}
        {labels.map((l) => (
          <span key={l} className="badge warn">
            {l}
          </span>
        ))}
        {ci && <small className="muted ci">{ci}</small>}
      </td>
    </>
  );
}

/** The typical baseline time on a target: the median over the rows (each timed on its own host). */
function baselineMs(table: LeaderboardTable, target: string): number | null {
  const xs = table.rows
    .map((r) => r.targets[target]?.baselineMs)
    .filter((x): x is number => typeof x === 'number')
    .sort((a, b) => a - b);
  return xs.length === 0 ? null : (xs[Math.floor(xs.length / 2)] ?? null);
}

/** The labels every row's cell of a target carries (all emulated, say): one badge in the heading. */
function commonLabels(table: LeaderboardTable, target: string): string[] {
  const [first, ...rest] = table.rows.map((r) => cellLabels(r.targets[target]));
  if (!first) return [];
  return first.filter((l) => rest.every((labels) => labels.includes(l)));
}

function Pages({ base, page, pages }: { base: string; page: number; pages: number }) {
  if (pages <= 1) return null;
  const href = (n: number) => (n === 1 ? base : `${base}/${n}`);
  return (
    <nav className="row small" aria-label="Leaderboard pages">
      {page > 1 && <Link href={href(page - 1)}>← Previous</Link>}
      {Array.from({ length: pages }, (_, i) => i + 1)
        // First, last and the three either side of this one: a thousand pages stay one line.
        .filter((n) => n === 1 || n === pages || Math.abs(n - page) <= 3)
        .map((n, i, shownPages) => (
          <span key={n}>
            {i > 0 && n - (shownPages[i - 1] ?? n) > 1 && '… '}
            {n === page ? <b aria-current="page">{n}</b> : <Link href={href(n)}>{n}</Link>}
          </span>
        ))}
      {page < pages && <Link href={href(page + 1)}>Next →</Link>}
    </nav>
  );
}

/** Page `page` (from 1) of the leaderboard; an unknown challenge or a page past the end is a 404. */
export async function LeaderboardView({ slug, page }: { slug: string; page: number }) {
  const table = await load(slug);
  const result = await getContestResultState(db(), table.challenge.slug);
  const definition = await getContestBenchmark(db(), table.challenge.slug);
  const provisional = result?.publishedAt != null;
  const pages = Math.max(1, Math.ceil(table.rows.length / PAGE_SIZE));
  if (page > pages) notFound();
  const shown = table.rows
    .slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
    .map((r) => ({ ...r, rowKey: leaderboardRowKey(table.challenge.slug, r.userId) }));
  const base = `/challenges/${table.challenge.slug}/leaderboard`;
  const common = Object.fromEntries(table.targets.map((t) => [t, commonLabels(table, t)]));
  const labelled = table.rows.some((r) =>
    Object.values(r.targets).some((c) => c.emulated || c.devMode),
  );
  return (
    <>
      <Heading table={table} base={base} provisional={provisional} />
      <FinalBanner slug={table.challenge.slug} where="leaderboard" />
      <p className="muted small">
        Each contestant&apos;s best accepted submission. Score:{' '}
        {FORMULA_WORDS[table.challenge.formula]}; the range under a speedup is its 95% confidence
        interval. {TIE_RULE}{' '}
        <span data-testid="leaderboard-as-of">
          As of {formatDateSeconds(new Date())}; never more than {LEADERBOARD_MAX_AGE_S} s behind
          the judge.
        </span>{' '}
        <span data-testid="leaderboard-definition">
          Every result here was timed on one benchmark definition:{' '}
          <span className="mono">{describeDefinition(definition)}</span>.
        </span>
      </p>
      {labelled && (
        <p className="notice warn small">
          Figures marked <span className="badge warn">emulated</span> or{' '}
          <span className="badge warn">dev mode</span> were not measured on the target&apos;s real
          hardware (dev mode) or operating system (emulated).
        </p>
      )}
      <CpuTimeNote table={table} />
      {table.rows.length === 0 ? (
        <p className="card empty">
          No accepted submission yet.{' '}
          <Link href={`/challenges/${table.challenge.slug}`}>Read the challenge</Link> and be the
          first.
        </p>
      ) : (
        <>
          <Pages base={base} page={page} pages={pages} />
          <div className="table-wrap">
            <table className="leaderboard">
              <LeaderboardHead table={table} common={common} />
              <tbody>
                {shown.map((r) => (
                  // An opaque key, not the user id: React keys and attributes are in the public HTML.
                  <LeaderboardRow key={r.rowKey} r={r} table={table} common={common} />
                ))}
              </tbody>
            </table>
          </div>
          <Pages base={base} page={page} pages={pages} />
          <OwnRowMarker slug={table.challenge.slug} />
        </>
      )}
      <p className="muted small">
        {table.rows.length} contestant{table.rows.length === 1 ? '' : 's'}
        {pages > 1 &&
          `, ${PAGE_SIZE} a page (rows ${(page - 1) * PAGE_SIZE + 1}–${(page - 1) * PAGE_SIZE + shown.length}; the exports hold every row)`}{' '}
        · times are wall-clock medians of the solution&apos;s timed runs on each target.
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

type Labels = Record<string, string[]>;

/** One contestant: rank (≈ when tied with the row above), name, each target, score, counts. */
function LeaderboardRow({
  r,
  table,
  common,
}: {
  r: LeaderboardTable['rows'][number] & { rowKey: string };
  table: LeaderboardTable;
  common: Labels;
}) {
  return (
    <tr data-row={r.rowKey}>
      <td className="num">
        {r.rank}
        {r.tiedWithAbove && (
          <span className="badge info" title="Statistically tied with the row above">
            ≈
          </span>
        )}
      </td>
      <td>
        {table.challenge.solutionsPublished ? (
          <Link
            className="ellipsis"
            title={`${r.userName}: their submission`}
            href={`/submissions/${r.submissionId}`}
            data-testid="solution-link"
          >
            {r.userName}
          </Link>
        ) : (
          <span className="ellipsis" title={r.userName}>
            {r.userName}
          </span>
        )}
      </td>
      {table.targets.map((t) => (
        <TargetCells key={t} cell={r.targets[t]} common={common[t] ?? []} />
      ))}
      <td className="num">
        <b>{formatScore(r.score)}</b>
        <small className="muted ci">
          {formatScore(r.scoreLow)}–{formatScore(r.scoreHigh)}
        </small>
      </td>
      <td className="num">{r.submissions}</td>
      <td className="nowrap small">{formatDate(r.submittedAt)}</td>
    </tr>
  );
}

/** Per target its baseline time and the labels every row shares, then the time and speedup heads. */
function LeaderboardHead({ table, common }: { table: LeaderboardTable; common: Labels }) {
  return (
    <thead>
      <tr>
        <th rowSpan={2} className="num">
          #
        </th>
        <th rowSpan={2}>Contestant</th>
        {table.targets.map((t) => (
          <th key={t} colSpan={2}>
            {t}
            {/* Its own line: run into the target's name it read "linux-intelbaseline". */}
            {baselineMs(table, t) !== null && (
              <>
                <br />
                <small className="muted ci" data-testid={`baseline-${t}`}>
                  baseline {formatMs(baselineMs(table, t))}
                </small>
              </>
            )}
            {common[t]?.length ? <br /> : null}
            {common[t]?.map((l) => (
              <span key={l} className="badge warn">
                {l}
              </span>
            ))}
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
  );
}

function Heading({
  table,
  base,
  provisional,
}: {
  table: LeaderboardTable;
  base: string;
  provisional: boolean;
}) {
  return (
    <div className="spread">
      <h1>
        <Link href={`/challenges/${table.challenge.slug}`}>{table.challenge.title}</Link>:{' '}
        {provisional ? 'provisional leaderboard' : 'leaderboard'}
      </h1>
      <div className="row">
        {provisional && (
          <Link className="btn" href={`/challenges/${table.challenge.slug}/final`}>
            Final result
          </Link>
        )}
        <a className="btn secondary" href={`${base}/export.md`} download>
          Markdown
        </a>
        <a className="btn secondary" href={`${base}/export.csv`} download>
          CSV
        </a>
      </div>
    </div>
  );
}
