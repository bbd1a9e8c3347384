// The submission's outcome in one sentence for the page header: which target failed and why first,
// then what the others did, so a mixed outcome never reads as one verdict ("Build error" above a
// green "Accepted 1.17×"). Pure: the page's live part and tests call it.
import type { JudgingStatus, Verdict } from '../../../contracts';
import { formatSpeedupInterval } from './format';
import { verdictWords } from './verdict-words';

export interface TargetOutcome {
  target: string;
  status: JudgingStatus;
  verdict: Verdict | null;
  message: string | null;
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
}

/** The reason's first line, short enough for a header. */
function shortReason(message: string | null): string {
  const first = (message ?? '').split('\n')[0]?.trim() ?? '';
  return first.length > 160 ? `${first.slice(0, 157)}…` : first;
}

/** Null when there is nothing mixed to say (all accepted, or nothing finished yet). */
export function summarizeOutcome(targets: readonly TargetOutcome[]): string | null {
  const done = targets.filter((t) => t.status === 'DONE' && t.verdict !== null);
  const failed = done.filter((t) => t.verdict !== 'ACCEPTED');
  if (failed.length === 0) return null;
  const parts = failed.map((t) => {
    const reason = shortReason(t.message);
    return `${verdictWords(t.verdict!)} on ${t.target}${reason ? ` (${reason})` : ''}`;
  });
  for (const t of done.filter((x) => x.verdict === 'ACCEPTED'))
    parts.push(`accepted on ${t.target}, ${formatSpeedupInterval(t.speedup, t.ciLow, t.ciHigh)}`);
  for (const t of targets.filter((x) => x.status === 'CANCELLED'))
    parts.push(`not judged on ${t.target}`);
  for (const t of targets.filter((x) => x.status !== 'DONE' && x.status !== 'CANCELLED'))
    parts.push(`${t.target} still judging`);
  const text = parts.join('; ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}
