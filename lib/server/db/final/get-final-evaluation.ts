// A challenge's latest final evaluation as pages, the API and the CLI show it: its progress per
// target and, once the scorer ranked it, the finalists with places, ties and why. The public sees
// the ranking only once the organizers published it (before: "in progress" / "under review");
// organizers (includeUnpublished) always, with the plausibility flags and messages.
import { finalSessionResultSchema, type FinalSessionResult } from '../../../../contracts';
import type {
  FinalRanking,
  RankedEntrant,
  TargetFigure,
} from '../../../core/ranking/final-ranking';
import type { Db } from '../client';
import { storedRounds } from './get-final-session-jobs';

export interface FinalSessionView {
  target: string;
  status: 'QUEUED' | 'WAITING' | 'JUDGING' | 'DONE' | 'CANCELLED';
  parts: number;
  roundsDone: number;
  roundsPlanned: number;
  /** From the pace of the rounds recorded so far; null before two rounds or once done. */
  etaMs: number | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  message: string | null;
  /** Hosts that timed it (organizers only; empty for the public). */
  hosts: string[];
}

export interface FinalEntrantView {
  userId: string;
  userName: string;
  submissionId: string;
  selectedExplicitly: boolean;
  provisionalScore: number;
  excludedReason: string | null;
  place: number | null;
  score: number | null;
  scoreCiLow: number | null;
  scoreCiHigh: number | null;
  perTarget: TargetFigure[];
  /** Names of the finalists sharing this place. */
  tiedWith: string[];
  tieReason: string | null;
  /** Organizers only: a run faster than the host can read the input, per target. */
  plausibilityFlags: string[];
}

export interface FinalEvaluationView {
  id: string;
  challengeSlug: string;
  status: 'RUNNING' | 'DONE' | 'FAILED' | 'CANCELLED';
  startedAt: Date;
  finishedAt: Date | null;
  publishedAt: Date | null;
  rounds: number;
  errorRate: number;
  spreadAcrossHosts: boolean;
  keptProvisionalSeed: boolean;
  /** Why it failed or was cancelled (organizers only). */
  message: string | null;
  sessions: FinalSessionView[];
  /** Best first; excluded ones last. Empty for the public until published. */
  entrants: FinalEntrantView[];
  /** How places were decided, in words (null until ranked, or for the public until published). */
  method: string | null;
  formula: 'SUM' | 'GEOMEAN' | null;
}

function parseResults(json: unknown): FinalSessionResult[] {
  if (!Array.isArray(json)) return [];
  return json.flatMap((r) => {
    const parsed = finalSessionResultSchema.safeParse(r);
    return parsed.success ? [parsed.data] : [];
  });
}

function etaMs(roundsJson: unknown, roundsPlanned: number): number | null {
  const times = storedRounds(roundsJson)
    .map((r) => Date.parse(r.finishedAt))
    .sort((a, b) => a - b);
  const first = times[0];
  const last = times[times.length - 1];
  if (times.length < 2 || first === undefined || last === undefined) return null;
  const left = roundsPlanned - times.length;
  if (left <= 0) return null;
  // Parts run side by side: the span covers the rounds of all of them together.
  const perRound = (last - first) / (times.length - 1);
  return Math.round(perRound * left);
}

function plausibilityFlags(
  entrantId: string,
  sessions: { target: string; results: FinalSessionResult[] }[],
): string[] {
  const flags: string[] = [];
  for (const s of sessions)
    for (const r of s.results) {
      const p = r.plausibility[entrantId];
      if (p?.flagged)
        flags.push(
          `${s.target}: fastest run ${p.fastestMs.toFixed(1)} ms, below the ${p.minPlausibleMs.toFixed(1)} ms ` +
            `this host needs to read the ${p.inputBytes}-byte input`,
        );
    }
  return flags;
}

/** The latest evaluation of the challenge with its sessions and entrants, as stored. */
function findLatestEvaluation(db: Db, challengeSlug: string) {
  return db.finalEvaluation.findFirst({
    where: { challenge: { slug: challengeSlug } },
    orderBy: { startedAt: 'desc' },
    select: {
      id: true,
      status: true,
      startedAt: true,
      finishedAt: true,
      publishedAt: true,
      rounds: true,
      errorRate: true,
      spreadAcrossHosts: true,
      keptProvisionalSeed: true,
      message: true,
      ranking: true,
      sessions: {
        orderBy: { target: { name: 'asc' } },
        select: {
          status: true,
          parts: true,
          roundsDone: true,
          roundsPlanned: true,
          rounds: true,
          results: true,
          startedAt: true,
          finishedAt: true,
          message: true,
          target: { select: { name: true } },
        },
      },
      entrants: {
        select: {
          id: true,
          userId: true,
          submissionId: true,
          selectedExplicitly: true,
          provisionalScore: true,
          excludedReason: true,
          place: true,
          score: true,
          user: { select: { name: true } },
        },
      },
    },
  });
}

type StoredEvaluation = NonNullable<Awaited<ReturnType<typeof findLatestEvaluation>>>;
type ParsedSession = {
  target: string;
  results: FinalSessionResult[];
  row: StoredEvaluation['sessions'][number];
};

/** Every entrant with the ranking's figures, best first (excluded ones last). */
function entrantViews(
  e: StoredEvaluation,
  ranking: FinalRanking | null,
  sessions: ParsedSession[],
  organizer: boolean,
): FinalEntrantView[] {
  const ranked = new Map<string, RankedEntrant>(
    (ranking?.entrants ?? []).map((r) => [r.entrant, r]),
  );
  const names = new Map(e.entrants.map((en) => [en.id, en.user.name]));
  const entrants = e.entrants.map((en): FinalEntrantView => {
    const r = ranked.get(en.id);
    return {
      userId: en.userId,
      userName: en.user.name,
      submissionId: en.submissionId,
      selectedExplicitly: en.selectedExplicitly,
      provisionalScore: en.provisionalScore,
      excludedReason: en.excludedReason,
      place: en.place,
      score: en.score,
      scoreCiLow: r?.scoreCiLow ?? null,
      scoreCiHigh: r?.scoreCiHigh ?? null,
      perTarget: r?.perTarget ?? [],
      tiedWith: (r?.tiedWith ?? []).map((id) => names.get(id) ?? id),
      tieReason: r?.tieReason ?? null,
      plausibilityFlags: organizer ? plausibilityFlags(en.id, sessions) : [],
    };
  });
  return entrants.sort(
    (a, b) =>
      (a.place ?? Infinity) - (b.place ?? Infinity) ||
      (b.score ?? -Infinity) - (a.score ?? -Infinity) ||
      b.provisionalScore - a.provisionalScore ||
      a.userName.localeCompare(b.userName),
  );
}

function sessionView(
  { target, results, row }: ParsedSession,
  organizer: boolean,
): FinalSessionView {
  return {
    target,
    status: row.status,
    parts: row.parts,
    roundsDone: row.roundsDone,
    roundsPlanned: row.roundsPlanned,
    etaMs: row.status === 'DONE' ? null : etaMs(row.rounds, row.roundsPlanned),
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    message: organizer ? row.message : null,
    hosts: organizer ? [...new Set(results.map((r) => r.host.hostname))] : [],
  };
}

export async function getFinalEvaluation(
  db: Db,
  challengeSlug: string,
  options: { includeUnpublished: boolean },
): Promise<FinalEvaluationView | null> {
  const e = await findLatestEvaluation(db, challengeSlug);
  if (!e) return null;
  const organizer = options.includeUnpublished;
  const sessions = e.sessions.map((s) => ({
    target: s.target.name,
    results: parseResults(s.results),
    row: s,
  }));
  const showRanking = organizer || e.publishedAt !== null;
  const ranking = showRanking && e.ranking ? (e.ranking as unknown as FinalRanking) : null;
  return {
    id: e.id,
    challengeSlug,
    status: e.status,
    startedAt: e.startedAt,
    finishedAt: e.finishedAt,
    publishedAt: e.publishedAt,
    rounds: e.rounds,
    errorRate: e.errorRate,
    spreadAcrossHosts: e.spreadAcrossHosts,
    keptProvisionalSeed: e.keptProvisionalSeed,
    message: organizer ? e.message : null,
    sessions: sessions.map((s) => sessionView(s, organizer)),
    entrants: showRanking ? entrantViews(e, ranking, sessions, organizer) : [],
    method: ranking?.method ?? null,
    formula: ranking?.formula ?? null,
  };
}
