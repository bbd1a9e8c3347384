// What a judging's measure session cost the host, in words the CLI report and the result page
// share: how many of its baseline runs were shared with other judgings, and the host time charged.
import type { MeasureSession } from '../../../contracts';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** "timed with up to 3 judgings: 28 of 30 baseline runs shared; host time 41.2 s (alone 78.9 s)" */
export function describeMeasureSession(session: MeasureSession): string {
  if (session.entrants <= 1 || session.sharedBaselineRuns === 0)
    return `timed alone: host time ${seconds(session.hostMs)} over ${session.rounds} rounds`;
  // Rounds counted from 1 for people; 0 kept before means it was there from the first.
  const joined = session.joinedAtRound
    ? ` (joined the running session at round ${session.joinedAtRound + 1})`
    : '';
  return (
    `timed with up to ${session.entrants} judgings${joined}: ${session.sharedBaselineRuns} of ` +
    `${session.rounds} baseline runs shared; host time charged ${seconds(session.hostMs)} ` +
    `(alone it would have been ${seconds(session.aloneHostMs)})`
  );
}
