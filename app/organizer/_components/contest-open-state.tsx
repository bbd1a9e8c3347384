// Whether a contest takes submissions now, as the console's challenge pages head it.
import type { Contest } from '../../../lib/server/db/contest/get-contest';

/** Open, or closed with the reason (the deadline passed, closed by an organizer). */
export function ContestOpenState({ contest }: { contest: Pick<Contest, 'open' | 'closedReason'> }) {
  return (
    <>
      {contest.open ? (
        <span className="badge ok">Open</span>
      ) : (
        <span className="badge bad">Closed</span>
      )}
      {contest.closedReason && <span className="muted">{contest.closedReason}</span>}
    </>
  );
}
