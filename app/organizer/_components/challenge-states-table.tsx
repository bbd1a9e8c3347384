// The organizer console's challenges: each one's state (the one rule of lib/core/challenge/contest-state.ts),
// deadline, submissions and where to manage it.
import Link from 'next/link';
import type { ChallengeState } from '../../../lib/server/db/contest/list-challenge-states';
import { formatCount, formatDate } from '../../../lib/server/web/format';

export function ChallengeStatesTable({ challenges }: { challenges: ChallengeState[] }) {
  return (
    <>
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
    </>
  );
}
