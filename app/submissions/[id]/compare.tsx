// The submission page's "Compare with" section (the author's view): pick another of your submissions
// or your best, and see speedups, times, memory, instruction counts and counters side by side with
// the change. A plain GET form (?compare=<id>|best): it works without JavaScript and can be linked.
import Link from 'next/link';
import type { SubmissionView } from '../../../lib/server/db/submissions/get-submission-view';
import type { ComparableSubmissions } from '../../../lib/server/db/submissions/list-comparable-submissions';
import type { TargetComparison, ComparisonRow } from '../../../lib/server/web/compare-submissions';
import {
  formatBytes,
  formatCount,
  formatDate,
  formatMs,
  formatScore,
  formatSpeedup,
} from '../../../lib/server/web/format';

function value(r: ComparisonRow, x: number | null): string {
  if (r.unit === 'x') return formatSpeedup(x);
  if (r.unit === 'ms' || r.unit === 'msec') return formatMs(x);
  if (r.unit === 'bytes') return formatBytes(x);
  return formatCount(x);
}

function Change({ r }: { r: ComparisonRow }) {
  if (r.ratio === null) return <span className="muted">–</span>;
  const better = r.higherIsBetter ? r.ratio > 1 : r.ratio < 1;
  const same = Math.abs(r.ratio - 1) < 0.005;
  const pct = (r.ratio - 1) * 100;
  return (
    <span className={same ? 'muted' : better ? 'ok-text' : 'bad-text'}>
      {pct >= 0 ? '+' : '−'}
      {Math.abs(pct).toFixed(1)}%
    </span>
  );
}

export function CompareSection({
  view,
  choices,
  compareParam,
  other,
  comparison,
}: {
  view: SubmissionView;
  choices: ComparableSubmissions;
  compareParam: string | null;
  other: SubmissionView | null;
  comparison: TargetComparison[] | null;
}) {
  if (choices.options.length === 0) return null;
  return (
    <section className="card" aria-labelledby="compare-h" data-testid="compare">
      <h2 id="compare-h" style={{ marginTop: 0 }}>
        Compare with another of your submissions
      </h2>
      <form method="get" className="row">
        <label htmlFor="compare-with" className="small">
          Compare with
        </label>
        <select id="compare-with" name="compare" defaultValue={compareParam ?? ''}>
          <option value="">(choose)</option>
          {choices.bestId && choices.bestId !== view.id && <option value="best">your best</option>}
          {choices.options.map((o) => (
            <option key={o.id} value={o.id}>
              {formatDate(o.createdAt)} · {o.verdict ?? 'pending'}
              {o.score !== null ? ` · ${formatScore(o.score)}` : ''}
            </option>
          ))}
        </select>
        <button type="submit" className="secondary small">
          Compare
        </button>
      </form>
      {compareParam && !other && (
        <p className="notice warn small">That submission is not one of yours on this challenge.</p>
      )}
      {other && comparison && (
        <>
          <p className="small">
            This submission against{' '}
            <Link href={`/submissions/${other.id}`} className="mono">
              {other.id}
            </Link>{' '}
            ({formatDate(other.createdAt)}). Change: this one against the other; green is better.
          </p>
          {comparison.map((t) => (
            <div key={t.target} className="table-wrap">
              <table aria-label={`Comparison on ${t.target}`} data-testid={`compare-${t.target}`}>
                <thead>
                  <tr>
                    <th>{t.target}</th>
                    <th className="num">this</th>
                    <th className="num">other</th>
                    <th className="num">change</th>
                  </tr>
                </thead>
                <tbody>
                  {t.rows.map((r) => (
                    <tr key={r.label}>
                      <td className="mono small">{r.label}</td>
                      <td className="num">{value(r, r.current)}</td>
                      <td className="num">{value(r, r.other)}</td>
                      <td className="num">
                        <Change r={r} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
        </>
      )}
    </section>
  );
}
