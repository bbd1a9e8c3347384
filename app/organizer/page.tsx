// The organizer console's front page: each challenge's state with its links, the runners online
// (host, current job, last heartbeat) and the queue depths.
import type { Metadata } from 'next';
import Link from 'next/link';
import { db } from '../../lib/server/db/client';
import { listChallengeStates } from '../../lib/server/db/contest/list-challenge-states';
import { formatCount, formatDate } from '../../lib/server/web/format';
import { getOrganizerStatus } from '../../lib/server/web/organizer-status';
import { requireOrganizer } from '../../lib/server/web/session';
import { AccountsUnderAttack } from './_components/accounts-under-attack';
import { ConsoleNav } from './_components/console-nav';
import { RunnerHostReport } from './_components/runner-host-report';
import { ServiceStatusTable } from './_components/service-status';

export const metadata: Metadata = { title: 'Organizer console' };

export default async function OrganizerPage() {
  await requireOrganizer('/organizer');
  const [challenges, status] = await Promise.all([listChallengeStates(db()), getOrganizerStatus()]);
  return (
    <>
      <h1>Organizer console</h1>
      <ConsoleNav current="/organizer" />

      <h2>Challenges</h2>
      {challenges.length === 0 ? (
        <p className="card empty">No challenge is registered yet: run npm run db:seed.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Challenge</th>
                <th>State</th>
                <th>Deadline</th>
                <th className="num">Submissions</th>
                <th>Manage</th>
              </tr>
            </thead>
            <tbody>
              {challenges.map((c) => (
                <tr key={c.slug}>
                  <td>
                    <Link href={`/challenges/${c.slug}`}>{c.title}</Link>{' '}
                    <span className="muted mono small">{c.slug}</span>
                  </td>
                  <td>
                    <div className="row" style={{ gap: '0.3em' }}>
                      {c.state === 'closed' ? (
                        <span className="badge bad">Closed</span>
                      ) : c.state === 'deadline-passed' ? (
                        <span className="badge warn">Deadline passed</span>
                      ) : (
                        <span className="badge ok">Open</span>
                      )}
                      {c.solutionsPublishedAt && (
                        <span className="badge info">Solutions published</span>
                      )}
                    </div>
                  </td>
                  <td className="nowrap">{c.deadline ? formatDate(c.deadline) : 'none'}</td>
                  <td className="num">{formatCount(c.submissions)}</td>
                  <td>
                    <div className="row" style={{ gap: '0.3em 0.8em' }}>
                      <Link href={`/organizer/submissions?challenge=${c.slug}`}>Submissions</Link>
                      <Link href={`/organizer/challenges/${c.slug}/settings`}>Settings</Link>
                      <Link href={`/organizer/challenges/${c.slug}/final`}>Final evaluation</Link>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <AccountsUnderAttack />

      <h2>Runners online</h2>
      {!status.ok ? (
        <div className="notice error" role="alert">
          {status.error}
        </div>
      ) : (
        <>
          {status.runners.length === 0 ? (
            <p className="card empty">
              No runner is online. Start one with{' '}
              <code>npx perfjudge runner --target linux-intel</code>.
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
                  {status.runners.map((r) => (
                    <tr key={r.runnerId}>
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
                          <Link
                            href={`/submissions/${r.currentSubmissionId}`}
                            className="mono small"
                          >
                            {r.currentSubmissionId}
                          </Link>
                        ) : (
                          <span className="mono small">judging {r.currentJob.judgingId}</span>
                        )}
                        {r.currentJob && (
                          <div className="muted small">
                            {/* Round 0 is the first judging; later rounds are rejudges. */}
                            {r.currentJob.round > 0
                              ? `rejudge ${r.currentJob.round}, `
                              : ''}since {formatDate(r.currentJob.since)}
                          </div>
                        )}
                      </td>
                      <td>
                        <RunnerHostReport report={r.hostReport} />
                      </td>
                      <td className="num">{r.ageSeconds} s ago</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <ServiceStatusTable services={status.services} />
          {status.invalidRunnerKeys > 0 && (
            <p className="notice warn small">
              {status.invalidRunnerKeys} heartbeat(s) could not be read (a runner of another
              version?).
            </p>
          )}

          <h2>Queues</h2>
          <div className="table-wrap">
            <table data-testid="organizer-queues">
              <thead>
                <tr>
                  <th>Queue</th>
                  <th className="num">Waiting</th>
                  <th className="num">Prioritized</th>
                  <th className="num">Active</th>
                  <th className="num">Delayed</th>
                  <th
                    className="num"
                    title="BullMQ's waiting-children: jobs held until jobs they depend on finish"
                  >
                    Held
                  </th>
                  <th className="num">Failed</th>
                  <th className="num">Completed</th>
                </tr>
              </thead>
              <tbody>
                {status.queues.map((q) => (
                  <tr key={q.name}>
                    <td className="mono nowrap">{q.name}</td>
                    <td className="num">{formatCount(q.waiting)}</td>
                    <td className="num">{formatCount(q.prioritized)}</td>
                    <td className="num">{formatCount(q.active)}</td>
                    <td className="num">{formatCount(q.delayed)}</td>
                    <td className="num">{formatCount(q.waitingChildren)}</td>
                    <td className="num">{formatCount(q.failed)}</td>
                    <td className="num">{formatCount(q.completed)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="muted small">
            Prioritized: rejudges, which wait behind new submissions. Completed and failed counts
            cover the retention window only.
          </p>
        </>
      )}
    </>
  );
}
