// The console's list of supervised processes (npm start's children, scorers): a runner or the
// scorer that died shows here as restarting or down, with why, until it is back.
import type { SupervisedService } from '../../../lib/server/web/organizer-status';
import { formatDate } from '../../../lib/server/web/format';

const BADGE: Record<SupervisedService['state'], string> = {
  running: 'badge',
  starting: 'badge warn',
  restarting: 'badge warn',
  down: 'badge error',
};

export function ServiceStatusTable({ services }: { services: SupervisedService[] }) {
  if (services.length === 0) return null;
  const troubled = services.filter((s) => s.state !== 'running');
  return (
    <>
      <h2>Processes</h2>
      {troubled.length > 0 && (
        <p className="notice warn" role="alert" data-testid="organizer-services-alert">
          {troubled.map((s) => `${s.name} is ${s.state}`).join('; ')}.
        </p>
      )}
      <div className="table-wrap">
        <table data-testid="organizer-services">
          <thead>
            <tr>
              <th>Process</th>
              <th>State</th>
              <th className="num">Restarts</th>
              <th>Last stop</th>
              <th>Supervised by</th>
            </tr>
          </thead>
          <tbody>
            {services.map((s) => (
              <tr key={`${s.supervisor}/${s.name}`}>
                <td className="nowrap">{s.name}</td>
                <td>
                  <span className={BADGE[s.state]}>{s.state}</span>
                  {s.nextStartAt && (
                    <div className="muted small">next start {formatDate(s.nextStartAt)}</div>
                  )}
                </td>
                <td className="num">{s.restarts}</td>
                <td>
                  {s.lastExit ? (
                    <>
                      {s.lastExit.reason}
                      <div className="muted small">{formatDate(s.lastExit.at)}</div>
                    </>
                  ) : (
                    <span className="muted">–</span>
                  )}
                </td>
                <td className="small">{s.supervisor}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
