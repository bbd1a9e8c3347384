// How `perfjudge status` and `perfjudge submit --wait` show a submission: a progress line per target
// while it is judged (redrawn in place on a terminal; in a log, a line when something changes and at
// least every 10 s), then the verdict with each target's speedup and interval.
import { isContestantFault, verdictSchema } from '../contracts';
import type { SubmissionState, SubmissionTargetState } from '../lib/server/submit/status-client';

const BAR_WIDTH = 20;
/** In a non-terminal log, the longest silence while nothing changes. */
const LOG_EVERY_MS = 10_000;

function bar(fraction: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
}

function interval(t: SubmissionTargetState): string {
  if (t.ciLow === null || t.ciHigh === null) return '';
  return ` (95% interval ${t.ciLow.toFixed(3)}–${t.ciHigh.toFixed(3)})`;
}

/** One target as a line: its bar and stage while judged, its verdict and speedup once done. */
function targetLine(t: SubmissionTargetState, width: number): string {
  const name = t.target.padEnd(width);
  if (t.status === 'DONE' || t.stage === 'done') {
    const verdict = t.verdict ?? 'DONE';
    const speedup = t.speedup !== null ? `  speedup ${t.speedup.toFixed(3)}×${interval(t)}` : '';
    return `${name}  ${verdict}${speedup}`;
  }
  const stage = t.stage === 'queued' ? 'queued' : t.stage === 'starting' ? 'starting' : t.stage;
  const percent = `${Math.round(t.overall * 100)}%`.padStart(4);
  return `${name}  ${bar(t.overall)} ${percent}  ${stage}${t.message ? `: ${t.message}` : ''}`;
}

/** The whole state as lines (the last view of `--wait`, and `perfjudge status`). */
export function formatState(state: SubmissionState, pageUrl: string): string {
  const width = Math.max(0, ...state.targets.map((t) => t.target.length));
  const head = state.done
    ? `Submission ${state.submissionId}: ${state.verdict ?? state.status}` +
      (state.score !== null ? `, score ${state.score.toFixed(3)}` : '') +
      (state.disqualified ? ' (disqualified)' : '')
    : `Submission ${state.submissionId}: ${state.status.toLowerCase()}`;
  return [head, ...state.targets.map((t) => `  ${targetLine(t, width)}`), `  ${pageUrl}`, ''].join(
    '\n',
  );
}

/** 0 ACCEPTED, 1 a verdict that is the patch's fault, 2 anything else (judge error, not done). */
export function exitCodeOf(state: SubmissionState): number {
  if (!state.done) return 2;
  const verdict = verdictSchema.safeParse(state.verdict);
  if (!verdict.success) return 2;
  return verdict.data === 'ACCEPTED' ? 0 : isContestantFault(verdict.data) ? 1 : 2;
}

/** Draws successive states to a stream: in place on a terminal, as log lines otherwise. */
export class ProgressView {
  private drawnLines = 0;
  private lastLogged = new Map<string, string>();
  private lastLogAt = 0;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly now: () => number = Date.now,
  ) {}

  show(state: SubmissionState): void {
    const width = Math.max(0, ...state.targets.map((t) => t.target.length));
    const lines = state.targets.map((t) => targetLine(t, width));
    if (this.out.isTTY) {
      const columns = (this.out.columns ?? 100) - 1;
      const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F` : '';
      this.out.write(up + lines.map((l) => `\x1b[2K${l.slice(0, columns)}\n`).join(''));
      this.drawnLines = lines.length;
      return;
    }
    // A log: a target's line when its stage or verdict changed, everything every LOG_EVERY_MS.
    const due = this.now() - this.lastLogAt >= LOG_EVERY_MS;
    state.targets.forEach((t, i) => {
      const key = `${t.status}|${t.stage}|${t.verdict ?? ''}`;
      if (due || this.lastLogged.get(t.target) !== key) {
        this.out.write(`${lines[i]}\n`);
        this.lastLogged.set(t.target, key);
      }
    });
    if (due) this.lastLogAt = this.now();
  }
}
