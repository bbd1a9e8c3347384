// One submission for the organizers: who, what and its judged figures per target; "Rejudge N times"
// beside the repeats it asked for, each series with every judging's speedup, interval and verdict
// and the series' spread (min–max, coefficient of variation), so a dispute is settled with numbers.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { db } from '../../../../lib/server/db/client';
import { getOrganizerSubmission } from '../../../../lib/server/db/submissions/get-organizer-submission';
import { getSubmissionStatus } from '../../../../lib/server/db/submissions/get-submission-status';
import {
  listRepeatJudgings,
  type RepeatJudgingRow,
} from '../../../../lib/server/db/judgings/list-repeat-judgings';
import {
  formatDate,
  formatSpeedup,
  formatSpeedupInterval,
} from '../../../../lib/server/web/format';
import { formatSpread, seriesSpread } from '../../../../lib/server/web/final-words';
import { idSchema } from '../../../../lib/server/web/organizer-settings-form';
import { requireOrganizer } from '../../../../lib/server/web/session';
import { AutoRefresh } from '../../../_components/auto-refresh';
import { VerdictBadge } from '../../../_components/verdict-badge';
import { ConsoleNav } from '../../_components/console-nav';
import { RepeatForm } from '../../_components/repeat-form';
import { SubmissionFacts } from '../../_components/submission-facts';
import { repeatJudgingsAction } from '../../actions';
import type { Verdict } from '../../../../contracts';

export const metadata: Metadata = { title: 'Submission · organizer' };

interface Series {
  seriesId: string;
  target: string;
  requestedAt: Date;
  judgings: RepeatJudgingRow[];
}

/** Repeats grouped by series (newest first), each series' judgings in their order. */
function bySeries(rows: readonly RepeatJudgingRow[]): Series[] {
  const groups = new Map<string, Series>();
  for (const r of rows) {
    const key = `${r.seriesId}\u0000${r.target}`;
    const group = groups.get(key) ?? {
      seriesId: r.seriesId,
      target: r.target,
      requestedAt: r.createdAt,
      judgings: [],
    };
    group.judgings.push(r);
    if (r.createdAt < group.requestedAt) group.requestedAt = r.createdAt;
    groups.set(key, group);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, judgings: g.judgings.sort((a, b) => a.index - b.index) }))
    .sort(
      (a, b) =>
        b.requestedAt.getTime() - a.requestedAt.getTime() || a.target.localeCompare(b.target),
    );
}

export default async function OrganizerSubmissionPage({
  params,
}: {
  params: Promise<{ id: string }>;
}) {
  const { id } = await params;
  await requireOrganizer(`/organizer/submissions/${encodeURIComponent(id)}`);
  if (!idSchema.safeParse(id).success) notFound();
  const [submission, status, repeats] = await Promise.all([
    getOrganizerSubmission(db(), id),
    getSubmissionStatus(db(), id),
    listRepeatJudgings(db(), id),
  ]);
  if (!submission || !status) notFound();
  const series = bySeries(repeats);
  const open = repeats.some((r) => r.status !== 'DONE' && r.status !== 'CANCELLED');

  return (
    <>
      <h1>
        Submission <span className="mono">{submission.id}</span>
      </h1>
      <ConsoleNav current={null} />
      {open && <AutoRefresh seconds={5} />}
      <section className="card" aria-label="Submission">
        <SubmissionFacts submission={submission}>
          <dt>Judged</dt>
          <dd>
            {status.judgings.map((j) => (
              <div key={j.judgingId}>
                <span className="mono">{j.target}</span>:{' '}
                {j.verdict === 'ACCEPTED' ? (
                  formatSpeedupInterval(j.speedup, j.ciLow, j.ciHigh)
                ) : (
                  <VerdictBadge verdict={j.verdict} status={j.status} />
                )}
              </div>
            ))}
          </dd>
          <dt>Pages</dt>
          <dd>
            <Link href={`/submissions/${submission.id}`}>submission page</Link> ·{' '}
            <Link href={`/organizer/submissions/${submission.id}/diff`}>diff</Link>
          </dd>
        </SubmissionFacts>
      </section>

      <div className="repeat-layout">
        <RepeatForm
          submissionId={submission.id}
          targets={status.judgings.map((j) => j.target)}
          action={repeatJudgingsAction}
        />
        <section aria-labelledby="repeats-h" data-testid="repeats">
          <h2 id="repeats-h" style={{ marginTop: 0 }}>
            Repeated judgings
          </h2>
          {series.length === 0 ? (
            <p className="card empty">None yet: ask for some with Rejudge N times.</p>
          ) : (
            series.map((s) => <SeriesTable key={`${s.seriesId}-${s.target}`} series={s} />)
          )}
        </section>
      </div>
    </>
  );
}

function SeriesTable({ series }: { series: Series }) {
  const spread = seriesSpread(series.judgings.map((j) => j.speedup));
  return (
    <div className="card repeat-series" data-testid={`repeat-series-${series.target}`}>
      <div className="spread">
        <strong className="mono">{series.target}</strong>
        <span className="small muted">requested {formatDate(series.requestedAt)}</span>
      </div>
      <p className="small" data-testid="repeat-spread">
        Spread: <strong>{formatSpread(spread)}</strong>
        {spread.mean !== null && (
          <span className="muted"> · mean {formatSpeedup(spread.mean)}</span>
        )}{' '}
        <span className="muted">
          ({spread.count} of {series.judgings.length} with a speedup)
        </span>
      </p>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Verdict</th>
              <th className="num">Speedup</th>
              <th className="num">Interval</th>
              <th>Finished</th>
            </tr>
          </thead>
          <tbody>
            {series.judgings.map((j) => (
              <tr key={j.index}>
                <td className="num">{j.index}</td>
                <td>
                  <VerdictBadge verdict={j.verdict as Verdict | null} status={j.status} />
                </td>
                <td className="num">{formatSpeedup(j.speedup)}</td>
                <td className="num small">
                  {j.ciLow !== null && j.ciHigh !== null
                    ? `${j.ciLow.toFixed(2)}–${j.ciHigh.toFixed(2)}`
                    : '–'}
                </td>
                <td className="small nowrap">{j.finishedAt ? formatDate(j.finishedAt) : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
