// The queue depths, BullMQ's counts by state for each queue of this deployment.
import type { QueueDepth } from '../../../lib/server/web/organizer-status';
import { formatCount } from '../../../lib/server/web/format';

export function QueuesTable({ queues }: { queues: QueueDepth[] }) {
  return (
    <>
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
            {queues.map((q) => (
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
        Prioritized: rejudges, which wait behind new submissions. Completed and failed counts cover
        the retention window only.
      </p>
    </>
  );
}
