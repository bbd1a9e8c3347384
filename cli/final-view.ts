// How `perfjudge final status` shows a final evaluation: each target's rounds done and time left,
// then (once ranked, and for the public once published) the ranking with places and ties.
import type { FinalEvaluationState } from '../lib/server/submit/final-client';

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 90 ? `${m} min` : `${(m / 60).toFixed(1)} h`;
}

export function formatFinalState(state: FinalEvaluationState): string {
  const lines: string[] = [];
  const published = state.publishedAt ? `, published ${state.publishedAt}` : '';
  lines.push(
    `Final evaluation ${state.id}: ${state.status}${published} (${state.rounds} rounds per target, error rate ${state.errorRate})`,
  );
  if (state.message) lines.push(`  ${state.message}`);
  const width = Math.max(0, ...state.sessions.map((s) => s.target.length));
  for (const s of state.sessions) {
    const left =
      s.status === 'DONE' ? '' : s.etaMs !== null ? `, about ${duration(s.etaMs)} left` : '';
    lines.push(
      `  ${s.target.padEnd(width)}  ${s.status.padEnd(9)} ${s.roundsDone}/${s.roundsPlanned} rounds${left}${s.message ? ` (${s.message})` : ''}`,
    );
  }
  if (state.entrants.length === 0) {
    if (state.status === 'RUNNING') lines.push('The final evaluation is in progress.');
    else if (state.status === 'DONE') lines.push('The final results are under review.');
    return `${lines.join('\n')}\n`;
  }
  lines.push('');
  lines.push('Place  Finalist            Score (interval)              Per target');
  for (const e of state.entrants) {
    const place = e.place !== null ? String(e.place).padStart(5) : '    –';
    const tie = e.tiedWith.length ? '=' : ' ';
    const score =
      e.score !== null
        ? `${e.score.toFixed(3)}${e.scoreCiLow !== null && e.scoreCiHigh !== null ? ` (${e.scoreCiLow.toFixed(3)}–${e.scoreCiHigh.toFixed(3)})` : ''}`
        : 'excluded';
    const targets = e.perTarget.map((t) => `${t.target} ${t.speedup.toFixed(3)}×`).join(', ');
    lines.push(
      `${place}${tie} ${e.userName.slice(0, 18).padEnd(19)} ${score.padEnd(29)} ${targets}`,
    );
    if (e.tieReason) lines.push(`        tied with ${e.tiedWith.join(', ')}: ${e.tieReason}`);
    if (e.excludedReason) lines.push(`        excluded: ${e.excludedReason}`);
    for (const f of e.plausibilityFlags) lines.push(`        implausible: ${f}`);
  }
  if (state.method) lines.push('', state.method);
  return `${lines.join('\n')}\n`;
}
