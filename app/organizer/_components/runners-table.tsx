// The runners online, from their heartbeats: host, CPU, labels, the judging in hand and the host report.
import Link from 'next/link';
import type { RunnerStatus } from '../../../lib/server/web/organizer-status';
import { formatDate } from '../../../lib/server/web/format';
import { RunnerHostReport } from './runner-host-report';

export function RunnersTable({ runners }: { runners: RunnerStatus[] }) {
  return (
    <>
      {runners.length === 0 ? (
        <p className="card empty">
          No runner is online. Start one with <code>npx perfjudge runner --target linux-intel</code>
          .
        </p>
      ) : (
        <div className="table-wrap">
          <table data-testid="organizer-runners">
            <thead>
              <tr>
                <th>Runner</th>
                <th>Target</th>
                <th>Host</th>
                <th>CPU</th>
                <th>Labels</th>
                <th>Current job</th>
                <th>Host report</th>
                <th className="num">Last heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {runners.map((r) => (
                <RunnerRow key={r.runnerId} r={r} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function RunnerRow({ r }: { r: RunnerStatus }) {
  return (
    <tr>
      <td className="mono small">
        <span className="ellipsis" title={r.runnerId}>
          {r.runnerId}
        </span>
      </td>
      <td className="nowrap">{r.target}</td>
      <td>
        <span className="ellipsis" title={r.hostname}>
          {r.hostname}
        </span>
      </td>
      <td>
        <span className="ellipsis" title={`${r.cpuModel} (${r.cpuVendor})`}>
          {r.cpuModel}
        </span>{' '}
        <span className="muted small">{r.cpuVendor}</span>
      </td>
      <td>
        <div className="row" style={{ gap: '0.3em' }}>
          {r.devMode && <span className="badge warn">dev mode</span>}
          {r.emulated && <span className="badge warn">emulated</span>}
          {!r.devMode && !r.emulated && <span className="muted">–</span>}
        </div>
      </td>
      <td>
        {!r.currentJob ? (
          <span className="muted">idle</span>
        ) : r.currentSubmissionId ? (
          <Link href={`/submissions/${r.currentSubmissionId}`} className="mono small">
            {r.currentSubmissionId}
          </Link>
        ) : (
          <span className="mono small">judging {r.currentJob.judgingId}</span>
        )}
        {r.currentJob && (
          <div className="muted small">
            {/* Round 0 is the first judging; later rounds are rejudges. */}
            {r.currentJob.round > 0 ? `rejudge ${r.currentJob.round}, ` : ''}since{' '}
            {formatDate(r.currentJob.since)}
          </div>
        )}
      </td>
      <td>
        <RunnerHostReport report={r.hostReport} off={r.hostReportOff === true} />
      </td>
      <td className="num">{r.ageSeconds} s ago</td>
    </tr>
  );
}
