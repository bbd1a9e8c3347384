// From the rounds the final sessions recorded (contracts/final.ts) to the ranking's input: which
// times count, and which finalists have too little left to be ranked.
import { BASELINE_ENTRANT, type FinalRound, type FinalRun } from '../../../contracts/final';
import type {
  ExcludedFinalist,
  FinalRankingInput,
  RankingRound,
  RankingTarget,
} from './final-ranking';

export interface SessionRounds {
  target: string;
  /** Every round the session's parts recorded (checkpoints included); parts may be concatenated. */
  rounds: readonly FinalRound[];
}

export interface RankingInputFromRoundsOptions {
  /** The finalists to rank (the ones a session excluded are left out by the caller). */
  entrants: readonly string[];
  sessions: readonly SessionRounds[];
  formula: FinalRankingInput['formula'];
  errorRate: number;
  labels?: Record<string, string>;
}

/**
 * A run counts when its output was correct: a round counts for a finalist only if both its run and
 * the baseline's count (the ratio needs both). Disturbance is the runner's to judge: it starts a
 * disturbed round over, and keeps one with disturbed runs only on purpose (development mode, once
 * its budget of discarded rounds is spent, said in the session's warnings), so every recorded
 * round is one it vouches for. A round number recorded twice (a part re-timed a round its checkpoint already had)
 * counts once, the first finished. A finalist left with no round on some target cannot get a
 * score: it goes to `excluded`, with the reason, and the others are ranked without it.
 */
export function rankingInputFromRounds(opts: RankingInputFromRoundsOptions): FinalRankingInput {
  const bySession = new Map<string, FinalRound[]>();
  for (const s of opts.sessions)
    bySession.set(s.target, [...(bySession.get(s.target) ?? []), ...s.rounds]);
  const targets: RankingTarget[] = [...bySession].map(([target, rounds]) => ({
    target,
    rounds: countedRounds(rounds, opts.entrants),
  }));
  const excluded: ExcludedFinalist[] = [];
  for (const entrant of opts.entrants) {
    const empty = targets
      .filter((t) => !t.rounds.some((r) => Object.hasOwn(r.entrantMs, entrant)))
      .map((t) => t.target);
    if (empty.length > 0)
      excluded.push({
        entrant,
        reason: `no round on ${empty.join(', ')} in which both its run and the baseline's were correct`,
      });
  }
  const out = new Set(excluded.map((e) => e.entrant));
  return {
    entrants: opts.entrants.filter((e) => !out.has(e)),
    targets: targets.map((t) => ({
      target: t.target,
      rounds: t.rounds
        .map((r) => ({ ...r, entrantMs: withoutKeys(r.entrantMs, out) }))
        .filter((r) => Object.keys(r.entrantMs).length > 0),
    })),
    formula: opts.formula,
    errorRate: opts.errorRate,
    ...(opts.labels === undefined ? {} : { labels: opts.labels }),
    excluded,
  };
}

function countedRounds(rounds: readonly FinalRound[], entrants: readonly string[]): RankingRound[] {
  const first = new Map<number, FinalRound>();
  for (const r of [...rounds].sort((x, y) =>
    x.finishedAt < y.finishedAt ? -1 : x.finishedAt > y.finishedAt ? 1 : 0,
  ))
    if (!first.has(r.round)) first.set(r.round, r);
  const result: RankingRound[] = [];
  for (const r of [...first.values()].sort((x, y) => x.round - y.round)) {
    const baseline = r.runs.find((run) => run.entrant === BASELINE_ENTRANT);
    if (baseline === undefined || !counts(baseline)) continue;
    const entrantMs: Record<string, number> = {};
    for (const entrant of entrants) {
      const run = r.runs.find((x) => x.entrant === entrant);
      if (run !== undefined && counts(run)) entrantMs[entrant] = run.wallMs;
    }
    result.push({ round: r.round, baselineMs: baseline.wallMs, entrantMs });
  }
  return result;
}

function counts(run: FinalRun): boolean {
  return run.correct && run.wallMs > 0;
}

function withoutKeys(
  record: Record<string, number>,
  keys: ReadonlySet<string>,
): Record<string, number> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !keys.has(k)));
}
