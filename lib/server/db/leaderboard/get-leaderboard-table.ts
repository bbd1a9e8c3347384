// The public leaderboard as a table: each contestant's best accepted submission (LeaderboardEntry:
// never a disqualified one) with its per-target figures, their number of submissions, ranks with
// shared places, the combined score's interval and statistical ties. Two queries whatever the
// number of rows: the challenge, then every row. Each row's per-target figures are stored on the
// row itself (LeaderboardEntry.cells, lib/server/db/leaderboard/refresh-leaderboard-entry.ts), so no judging result is
// read: 1,000 rows take a few milliseconds.
import { combinedScoreInterval, markTies } from '../../../core/ranking/leaderboard-ties';
import type { Db } from '../client';
import { NotFoundError } from '../errors';
import type { ScoringFormula } from '../generated/prisma/enums';

export interface LeaderboardTargetCell {
  /** Median wall time of the solution's timed runs on that target (measure stage), if measured. */
  solutionMs: number | null;
  /** Median wall time of the baseline's timed runs beside them (same host), if measured. */
  baselineMs: number | null;
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  emulated: boolean;
  devMode: boolean;
  /**
   * What the speedup was measured on: wall time, or (the host too busy for clean wall-time pairs,
   * where the organizer allowed it) the runs' CPU time, labelled wherever it is shown.
   */
  basis: 'wall-time' | 'cpu-time';
}

/** One stored cell of LeaderboardEntry.cells. */
export interface LeaderboardCell extends LeaderboardTargetCell {
  target: string;
}

export interface LeaderboardTableRow {
  /** Equal scores share a place (1, 2, 2, 4). */
  rank: number;
  /** For highlighting the signed-in contestant's own row (never shown). */
  userId: string;
  userName: string;
  /** The submission that counts; linked once the solutions are published. */
  submissionId: string;
  score: number;
  scoreLow: number;
  scoreHigh: number;
  /** Its score interval overlaps the one of the row above (lib/core/ranking/leaderboard-ties.ts). */
  tiedWithAbove: boolean;
  /** Keyed by target name; a target the submission was not judged on is missing. */
  targets: Record<string, LeaderboardTargetCell>;
  /** All of the contestant's submissions to this challenge, whatever their verdict. */
  submissions: number;
  /** When the current best submission was made: the last improvement. */
  submittedAt: Date;
}

export interface LeaderboardTable {
  challenge: {
    slug: string;
    title: string;
    formula: ScoringFormula;
    /** Once published, every row links to its submission. */
    solutionsPublished: boolean;
  };
  /** The column order: the latest version's targets, then any others older rows were judged on. */
  targets: string[];
  rows: LeaderboardTableRow[];
}

interface RawRow {
  userId: string;
  userName: string;
  submissionId: string;
  score: number;
  submittedAt: Date;
  submissions: number;
  formula: ScoringFormula;
  judgings: Partial<LeaderboardCell>[];
}

// The submission counts come from one grouped pass over the challenge's submissions (an index-only
// scan of Submission(challengeId, userId, …)); everything else is on the leaderboard row.
function leaderboardRows(db: Db, challengeId: string): Promise<RawRow[]> {
  return db.$queryRaw<RawRow[]>`
    WITH counts AS (
      SELECT s."userId", count(*)::int AS n
      FROM "Submission" s
      WHERE s."challengeId" = ${challengeId}
      GROUP BY s."userId"
    )
    SELECT le."userId", u.name AS "userName", le."submissionId", le.score, le."submittedAt",
           COALESCE(c.n, 0) AS submissions, cv."scoringFormula"::text AS formula,
           le.cells AS judgings
    FROM "LeaderboardEntry" le
    JOIN "User" u ON u.id = le."userId"
    JOIN "Submission" s ON s.id = le."submissionId"
    JOIN "ChallengeVersion" cv ON cv.id = s."challengeVersionId"
    LEFT JOIN counts c ON c."userId" = le."userId"
    -- disqualifySubmission already removes the row; checked again so a missed refresh cannot show one.
    WHERE le."challengeId" = ${challengeId} AND NOT s.disqualified
    ORDER BY le.score DESC, le."submittedAt" ASC, le."submissionId" ASC`;
}

/** A row's stored cells by target; rows stored before a field existed read it as unknown (null). */
function readCells(stored: Partial<LeaderboardCell>[]) {
  const cells: Record<string, LeaderboardTargetCell> = {};
  const judgings: LeaderboardCell[] = [];
  for (const j of stored) {
    if (typeof j.target !== 'string') continue;
    const cell = {
      solutionMs: j.solutionMs ?? null,
      baselineMs: j.baselineMs ?? null,
      speedup: j.speedup ?? null,
      ciLow: j.ciLow ?? null,
      ciHigh: j.ciHigh ?? null,
      emulated: j.emulated ?? false,
      devMode: j.devMode ?? false,
      basis: j.basis === 'cpu-time' ? ('cpu-time' as const) : ('wall-time' as const),
    };
    cells[j.target] = cell;
    judgings.push({ target: j.target, ...cell });
  }
  return { cells, judgings };
}

export async function getLeaderboardTable(
  db: Db,
  options: { challengeSlug: string },
): Promise<LeaderboardTable> {
  const challenge = await db.challenge.findUnique({
    where: { slug: options.challengeSlug },
    select: {
      id: true,
      slug: true,
      title: true,
      solutionsPublishedAt: true,
      versions: {
        orderBy: { version: 'desc' },
        take: 1,
        select: { scoringFormula: true, targets: { select: { name: true } } },
      },
    },
  });
  const latest = challenge?.versions[0];
  if (!challenge || !latest) throw new NotFoundError(`No challenge ${options.challengeSlug}`);

  const raw = await leaderboardRows(db, challenge.id);

  const targets = latest.targets.map((t) => t.name).sort();
  const known = new Set(targets);
  const extra = new Set<string>();
  let rank = 0;
  const rows = raw.map((r, i) => {
    if (i === 0 || r.score !== raw[i - 1]?.score) rank = i + 1;
    const { cells, judgings } = readCells(r.judgings);
    for (const target of Object.keys(cells)) if (!known.has(target)) extra.add(target);
    const interval = combinedScoreInterval(r.formula, r.score, judgings);
    return {
      rank,
      userId: r.userId,
      userName: r.userName,
      submissionId: r.submissionId,
      score: r.score,
      scoreLow: interval.low,
      scoreHigh: interval.high,
      tiedWithAbove: false,
      targets: cells,
      submissions: r.submissions,
      submittedAt: r.submittedAt,
    };
  });
  markTies(rows.map((r) => ({ score: r.score, low: r.scoreLow, high: r.scoreHigh }))).forEach(
    (tied, i) => {
      const row = rows[i];
      if (row) row.tiedWithAbove = tied;
    },
  );
  return {
    challenge: {
      slug: challenge.slug,
      title: challenge.title,
      formula: latest.scoringFormula,
      solutionsPublished: challenge.solutionsPublishedAt !== null,
    },
    targets: [...targets, ...[...extra].sort()],
    rows,
  };
}
