// The explanation of the "CPU-time estimate" label (a speedup estimated from CPU time is
// labelled as such everywhere it is shown), under the leaderboard's other notes when a row has one.
import type { LeaderboardTable } from '../../../../lib/server/db/leaderboard/get-leaderboard-table';
import {
  CPU_TIME_EXPLANATION,
  hasCpuTimeEstimates,
} from '../../../../lib/server/web/leaderboard-export';

export function CpuTimeNote({ table }: { table: LeaderboardTable }) {
  if (!hasCpuTimeEstimates(table)) return null;
  return (
    <p className="notice warn small" data-testid="cpu-time-note">
      {CPU_TIME_EXPLANATION}
    </p>
  );
}
