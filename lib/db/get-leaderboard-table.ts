// The public leaderboard as a table: each contestant's best accepted submission (LeaderboardEntry:
// never a disqualified one) with its per-target figures, their number of submissions, ranks with
// shared places, the combined score's interval and statistical ties. Two queries whatever the
// number of rows: the challenge, then every row with its judgings aggregated in SQL.
import { combinedScoreInterval, markTies } from '../web/leaderboard-ties';
import type { Db } from './client';
import { NotFoundError } from './errors';
import type { ScoringFormula } from './generated/prisma/enums';

export interface LeaderboardTargetCell {
  /** Median wall time of the solution's timed runs on that target (measure stage), if measured. */
  solutionMs: number | null;
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  emulated: boolean;
  devMode: boolean;
}

export interface LeaderboardTableRow {
  /** Equal scores share a place (1, 2, 2, 4). */
  rank: number;
  userName: string;
  score: number;
  scoreLow: number;
  scoreHigh: number;
  /** Its score interval overlaps the one of the row above (lib/web/leaderboard-ties.ts). */
  tiedWithAbove: boolean;
  /** Keyed by target name; a target the submission was not judged on is missing. */
  targets: Record<string, LeaderboardTargetCell>;
  /** All of the contestant's submissions to this challenge, whatever their verdict. */
  submissions: number;
  /** When the current best submission was made: the last improvement. */
  submittedAt: Date;
}

export interface LeaderboardTable {
  challenge: { slug: string; title: string; formula: ScoringFormula };
  /** The column order: the latest version's targets, then any others older rows were judged on. */
  targets: string[];
  rows: LeaderboardTableRow[];
}

interface RawRow {
  userName: string;
  score: number;
  submittedAt: Date;
  submissions: number;
  formula: ScoringFormula;
  judgings: {
    target: string;
    solutionMs: number | null;
    speedup: number | null;
    ciLow: number | null;
    ciHigh: number | null;
    emulated: boolean;
    devMode: boolean;
  }[];
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
      versions: {
        orderBy: { version: 'desc' },
        take: 1,
        select: { scoringFormula: true, targets: { select: { name: true } } },
      },
    },
  });
  const latest = challenge?.versions[0];
  if (!challenge || !latest) throw new NotFoundError(`No challenge ${options.challengeSlug}`);

  // The submission counts come from one grouped pass over the challenge's submissions (index
  // Submission(challengeId, userId, …)); the judgings of each row are one index lookup each,
  // aggregated in SQL so that thousands of rows cost one round trip and no N+1.
  const raw = await db.$queryRaw<RawRow[]>`
    WITH counts AS (
      SELECT s."userId", count(*)::int AS n
      FROM "Submission" s
      WHERE s."challengeId" = ${challenge.id}
      GROUP BY s."userId"
    )
    SELECT u.name AS "userName", le.score, le."submittedAt", COALESCE(c.n, 0) AS submissions,
           cv."scoringFormula"::text AS formula,
           COALESCE((
             SELECT json_agg(json_build_object(
                      'target', t.name,
                      'solutionMs', (j.result #>> '{stages,measure,solution,medianMs}')::float8,
                      'speedup', j.speedup, 'ciLow', j."ciLow", 'ciHigh', j."ciHigh",
                      'emulated', j.emulated, 'devMode', j."devMode") ORDER BY t.name)
             FROM "Judging" j JOIN "Target" t ON t.id = j."targetId"
             WHERE j."submissionId" = le."submissionId"
           ), '[]'::json) AS judgings
    FROM "LeaderboardEntry" le
    JOIN "User" u ON u.id = le."userId"
    JOIN "Submission" s ON s.id = le."submissionId"
    JOIN "ChallengeVersion" cv ON cv.id = s."challengeVersionId"
    LEFT JOIN counts c ON c."userId" = le."userId"
    -- disqualifySubmission already removes the row; checked again so a missed refresh cannot show one.
    WHERE le."challengeId" = ${challenge.id} AND NOT s.disqualified
    ORDER BY le.score DESC, le."submittedAt" ASC, le."submissionId" ASC`;

  const targets = latest.targets.map((t) => t.name).sort();
  const known = new Set(targets);
  const extra = new Set<string>();
  let rank = 0;
  const rows = raw.map((r, i) => {
    if (i === 0 || r.score !== raw[i - 1]?.score) rank = i + 1;
    const cells: Record<string, LeaderboardTargetCell> = {};
    for (const j of r.judgings) {
      if (!known.has(j.target)) extra.add(j.target);
      cells[j.target] = {
        solutionMs: j.solutionMs,
        speedup: j.speedup,
        ciLow: j.ciLow,
        ciHigh: j.ciHigh,
        emulated: j.emulated,
        devMode: j.devMode,
      };
    }
    const interval = combinedScoreInterval(r.formula, r.score, r.judgings);
    return {
      rank,
      userName: r.userName,
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
    challenge: { slug: challenge.slug, title: challenge.title, formula: latest.scoringFormula },
    targets: [...targets, ...[...extra].sort()],
    rows,
  };
}
