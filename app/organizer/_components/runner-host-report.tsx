// One cell of the console's runners table: the runner's start-up host report (noise of the
// baseline on the judge's CPU, and each timing/memory check's verdict), details on demand.
import type { HostReport } from '../../../contracts';
import { formatDate } from '../../../lib/server/web/format';

const BADGE: Record<HostReport['verdict'], string> = {
  ok: 'ok',
  warn: 'warn',
  bad: 'bad',
  unknown: 'info',
};

export function RunnerHostReport({
  report,
  off,
}: {
  report: HostReport | undefined;
  off: boolean;
}) {
  if (!report && off)
    return (
      <span className="muted small" data-testid="runner-host-report-off">
        not measured: started with <code>--no-host-report</code>; <code>perfjudge doctor</code> on
        the host measures it
      </span>
    );
  if (!report) return <span className="muted small">measuring…</span>;
  const n = report.noise;
  const flagged = report.checks.filter((c) => c.verdict === 'bad' || c.verdict === 'warn');
  return (
    <details data-testid="runner-host-report">
      <summary>
        <span className={`badge ${BADGE[report.verdict]}`}>{report.verdict}</span>{' '}
        <span className="small">
          {n
            ? `CV ${(n.wallCv * 100).toFixed(1)}% · util ${n.utilization.toFixed(2)} · other ${n.otherTasksMs.toFixed(0)} ms`
            : 'noise not measured'}
        </span>
      </summary>
      <ul className="small">
        {(flagged.length ? flagged : report.checks).map((c) => (
          <li key={c.id}>
            <strong>{c.verdict}</strong> {c.title}: {c.detail}
            {c.fix && c.verdict !== 'ok' ? <div className="muted">fix: {c.fix}</div> : null}
          </li>
        ))}
      </ul>
      <div className="muted small">
        CPU {report.cpu ?? '?'}
        {n ? `, ${n.runs} runs of ${(n.medianWallMs / 1000).toFixed(2)} s` : ''}, measured{' '}
        {formatDate(report.measuredAt)}; <code>perfjudge doctor</code> on the host for everything
      </div>
    </details>
  );
}
