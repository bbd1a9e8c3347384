// A verdict or status as a coloured badge with its words ("Wrong answer", "Judging…").
import type { Verdict } from '../../contracts';
import { verdictWords } from '../../lib/server/web/verdict-words';

export function verdictLabel(verdict: Verdict): string {
  return verdictWords(verdict);
}

export function VerdictBadge({
  verdict,
  status,
  disqualified,
}: {
  verdict: Verdict | null;
  /** Submission or judging status, shown while there is no verdict yet. */
  status?: string;
  disqualified?: boolean;
}) {
  if (disqualified) return <span className="badge bad">Disqualified</span>;
  if (status === 'CANCELLED') return <span className="badge">Not judged</span>;
  // Settled without a verdict: superseded by the author's newer submission while still queued.
  if (status === 'DONE' && !verdict) return <span className="badge">Superseded</span>;
  if (!verdict)
    return (
      <span className="badge info">
        {status === 'JUDGING'
          ? 'Judging…'
          : status === 'WAITING'
            ? 'Waiting for the host'
            : status === 'CANCELLED'
              ? 'Not judged'
              : status === 'FAILED'
                ? 'Judge error'
                : 'Queued'}
      </span>
    );
  const tone = verdict === 'ACCEPTED' ? 'ok' : verdict === 'JUDGE_ERROR' ? 'warn' : 'bad';
  return <span className={`badge ${tone}`}>{verdictWords(verdict)}</span>;
}
