// The final ranking as a table, for the public final leaderboard and the console: place ("2=" when
// shared, with the reason under the name), per-target speedup with its interval, the combined score
// with its interval; the console adds the provisional score, the selection and plausibility flags.
import Link from 'next/link';
import { formatScore, formatSpeedup } from '../../lib/server/web/format';
import type { FinalTable, FinalTableRow } from '../../lib/server/web/final-table';
import { leaderboardRowKey } from '../../lib/server/web/leaderboard-row-key';
import { OwnRowMarker } from '../challenges/[slug]/leaderboard/own-row';

function interval(low: number | null | undefined, high: number | null | undefined) {
  if (low === null || low === undefined || high === null || high === undefined) return null;
  return `${low.toFixed(2)}–${high.toFixed(2)}`;
}

function scoreInterval(row: FinalTableRow) {
  if (row.scoreCiLow === null || row.scoreCiHigh === null) return null;
  return `${formatScore(row.scoreCiLow)}–${formatScore(row.scoreCiHigh)}`;
}

export function FinalRankingTable({
  table,
  organizer = false,
}: {
  table: FinalTable;
  /** The console's view: submissions linked, provisional figures and plausibility flags shown. */
  organizer?: boolean;
}) {
  const rowKeys = table.rows.map((r) => leaderboardRowKey(table.challenge.slug, r.userId));
  return (
    <div className="table-wrap">
      <table className="leaderboard final-ranking" data-testid="final-ranking">
        <thead>
          <tr>
            <th className="num">Place</th>
            <th>Contestant</th>
            {table.targets.map((t) => (
              <th key={t} className="num">
                {t}
                <small className="muted ci">speedup</small>
              </th>
            ))}
            <th className="num">Score</th>
            {organizer && <th className="num">Provisional</th>}
            {organizer && <th>Flags</th>}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r, i) => (
            // An opaque key, not the user id: the public final leaderboard is this table too.
            <tr
              key={rowKeys[i]}
              data-row={rowKeys[i]}
              data-place={r.placeLabel}
              className={r.excludedReason ? 'excluded' : undefined}
            >
              <td className="num nowrap">
                <b title={r.sharedWith || undefined}>{r.placeLabel}</b>
              </td>
              <td>
                <FinalistCell r={r} organizer={organizer} />
              </td>
              {table.targets.map((t) => (
                <FinalTargetCell key={t} c={r.targets[t]} rounds={table.rounds} />
              ))}
              <td className="num">
                <b>{formatScore(r.score)}</b>
                {scoreInterval(r) && <small className="muted ci">{scoreInterval(r)}</small>}
              </td>
              {organizer && <td className="num">{formatScore(r.provisionalScore)}</td>}
              {organizer && (
                <td>
                  {r.plausibilityFlags.length === 0 ? (
                    <span className="muted">–</span>
                  ) : (
                    r.plausibilityFlags.map((f) => (
                      <span key={f} className="badge warn" title={f}>
                        {f}
                      </span>
                    ))
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {!organizer && <OwnRowMarker slug={table.challenge.slug} />}
    </div>
  );
}

/** The ranking's warnings, which explain weak figures and shared places. */
export function RankingWarnings({ warnings }: { warnings: string[] }) {
  if (warnings.length === 0) return null;
  return (
    <div className="notice warn small" data-testid="ranking-warnings">
      {warnings.map((w) => (
        <p key={w} style={{ margin: '0.2em 0' }}>
          {w}
        </p>
      ))}
    </div>
  );
}

/** A finalist's speedup on one target, its interval, and how many rounds counted. */
function FinalTargetCell({
  c,
  rounds,
}: {
  c: FinalTableRow['targets'][string] | undefined;
  rounds: number;
}) {
  return (
    <td className="num">
      {c ? (
        <>
          {formatSpeedup(c.speedup)}
          <small className="muted ci">{interval(c.ciLow, c.ciHigh)}</small>
          {/* Rounds with a disturbed or failed run do not count: say when some did not. */}
          {c.rounds < rounds && (
            <small className="muted ci" data-testid="rounds-counted">
              {c.rounds} of {rounds} rounds
            </small>
          )}
        </>
      ) : (
        <span className="muted">–</span>
      )}
    </td>
  );
}

/** The finalist's name (linked for organizers), why they share or lack a place, and how chosen. */
function FinalistCell({ r, organizer }: { r: FinalTableRow; organizer: boolean }) {
  return (
    <>
      {organizer ? (
        <Link
          className="ellipsis"
          title={r.userName}
          href={`/organizer/submissions/${r.submissionId}`}
          data-testid="finalist-name"
        >
          {r.userName}
        </Link>
      ) : (
        <span className="ellipsis" title={r.userName} data-testid="finalist-name">
          {r.userName}
        </span>
      )}
      {r.tieReason && (
        <small className="muted tie-reason" data-testid="tie-reason">
          {r.tieReason}
        </small>
      )}
      {r.excludedReason && (
        <small className="bad-text tie-reason">Not placed: {r.excludedReason}</small>
      )}
      {organizer && (
        <small className="muted tie-reason">
          {r.selectedExplicitly ? 'chosen by the contestant' : 'best score, by default'}
        </small>
      )}
    </>
  );
}
