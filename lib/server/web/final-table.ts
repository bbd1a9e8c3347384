// The final leaderboard as the public page and its exports show it, built once from the
// evaluation's view (lib/server/db/final/get-final-evaluation.ts): ranked finalists best first with their place
// label, per-target figures in the targets' order, and the finalists a session excluded after them.
import type { FinalEvaluationView } from '../db/final/get-final-evaluation';
import { placeLabel, sharedWith } from './final-words';

export interface FinalTargetCell {
  speedup: number;
  ciLow: number;
  ciHigh: number;
  rounds: number;
}

export interface FinalTableRow {
  userId: string;
  userName: string;
  submissionId: string;
  selectedExplicitly: boolean;
  provisionalScore: number;
  place: number | null;
  /** "2=" for a shared place. */
  placeLabel: string;
  tiedWith: string[];
  /** "shared with Ada and Bob". */
  sharedWith: string;
  tieReason: string | null;
  score: number | null;
  scoreCiLow: number | null;
  scoreCiHigh: number | null;
  targets: Record<string, FinalTargetCell>;
  plausibilityFlags: string[];
  /** Set for a finalist a session excluded (did not build, wrong output): no place. */
  excludedReason: string | null;
}

export interface FinalTable {
  challenge: { slug: string; title: string; formula: 'SUM' | 'GEOMEAN' };
  evaluationId: string;
  status: FinalEvaluationView['status'];
  publishedAt: Date | null;
  finishedAt: Date | null;
  rounds: number;
  errorRate: number;
  spreadAcrossHosts: boolean;
  method: string;
  targets: string[];
  /** Placed finalists best first, then the excluded ones. */
  rows: FinalTableRow[];
}

function byPlace(a: FinalTableRow, b: FinalTableRow): number {
  if (a.excludedReason !== null || b.excludedReason !== null)
    return (a.excludedReason === null ? 0 : 1) - (b.excludedReason === null ? 0 : 1);
  return (
    (a.place ?? Infinity) - (b.place ?? Infinity) ||
    (b.score ?? -Infinity) - (a.score ?? -Infinity) ||
    a.userName.localeCompare(b.userName)
  );
}

export function finalTable(
  challenge: FinalTable['challenge'],
  view: FinalEvaluationView,
): FinalTable {
  // The ranking's own formula when it has one: it is what the scores were combined with.
  challenge = { ...challenge, formula: view.formula ?? challenge.formula };
  const targets = [
    ...new Set([
      ...view.sessions.map((s) => s.target),
      ...view.entrants.flatMap((e) => e.perTarget.map((t) => t.target)),
    ]),
  ];
  const rows = view.entrants.map((e): FinalTableRow => ({
    userId: e.userId,
    userName: e.userName,
    submissionId: e.submissionId,
    selectedExplicitly: e.selectedExplicitly,
    provisionalScore: e.provisionalScore,
    place: e.excludedReason === null ? e.place : null,
    placeLabel: e.excludedReason === null ? placeLabel(e.place, e.tiedWith) : 'excluded',
    tiedWith: e.tiedWith,
    sharedWith: sharedWith(e.tiedWith),
    tieReason: e.tieReason,
    score: e.score,
    scoreCiLow: e.scoreCiLow,
    scoreCiHigh: e.scoreCiHigh,
    targets: Object.fromEntries(
      e.perTarget.map((t) => [
        t.target,
        { speedup: t.speedup, ciLow: t.ciLow, ciHigh: t.ciHigh, rounds: t.rounds },
      ]),
    ),
    plausibilityFlags: e.plausibilityFlags,
    excludedReason: e.excludedReason,
  }));
  return {
    challenge,
    evaluationId: view.id,
    status: view.status,
    publishedAt: view.publishedAt,
    finishedAt: view.finishedAt,
    rounds: view.rounds,
    errorRate: view.errorRate,
    spreadAcrossHosts: view.spreadAcrossHosts,
    method: view.method ?? 'Not ranked yet.',
    targets,
    rows: rows.sort(byPlace),
  };
}
