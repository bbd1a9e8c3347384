// The version of everything a settled submission page shows one viewer, for the production
// server's response cache (lib/server/web/submission-page-cache.ts): a copy is served only while this is
// unchanged. It is made of the PostgreSQL row versions (`xmin`: a new one for every write, by Prisma
// or raw SQL alike) of each row the page reads (app/submissions/[id]/page.tsx):
// - the submission (verdict, score, disqualification) and its judgings (states, results);
// - its challenge (title, deadline, closed, solutions published) and its final evaluations (a
//   started one closes the final selection);
// - its author's user row (the name shown);
// - the viewer: their session (signed out or expired: another viewer) and user row (their role),
//   and their own rows the author's page reads: their submissions to the challenge (the comparison
//   choices, the final choice's eligibility), their leaderboard rows and final selections (which
//   submission counts for the final).
// Rows added or deleted change the lists, so they count too. A page whose judgings are still
// running is not settled: its live progress comes from the queues, which no row version covers.
// One prepared statement through the pg driver: it runs for every request of such a page.
import type pg from 'pg';

export interface SubmissionPageVersion {
  /** Every target has its final verdict and the submission its overall one: nothing is live. */
  settled: boolean;
  /** Changes whenever a row the page shows this viewer changes. */
  version: string;
}

const VERSION_SQL = `
  WITH v AS (
    SELECT u.id, u.xmin::text || ':' || se.xmin::text AS row
    FROM "Session" se JOIN "User" u ON u.id = se."userId"
    WHERE se.token = $2 AND se."expiresAt" > now()
  ), s AS (
    SELECT id, "userId", "challengeId", status::text AS status, xmin::text AS row
    FROM "Submission" WHERE id = $1
  )
  SELECT
    (SELECT status IN ('DONE', 'FAILED') FROM s)
      AND (SELECT coalesce(bool_and(j.status::text IN ('DONE', 'CANCELLED')), true)
           FROM "Judging" j WHERE j."submissionId" = $1) AS settled,
    md5(concat_ws('|',
      (SELECT row FROM s),
      (SELECT string_agg(j.id || ':' || j.xmin::text, ',' ORDER BY j.id)
       FROM "Judging" j WHERE j."submissionId" = $1),
      (SELECT c.xmin::text FROM "Challenge" c JOIN s ON c.id = s."challengeId"),
      (SELECT string_agg(f.id || ':' || f.xmin::text, ',' ORDER BY f.id)
       FROM "FinalEvaluation" f JOIN s ON f."challengeId" = s."challengeId"),
      (SELECT u.xmin::text FROM "User" u JOIN s ON u.id = s."userId"),
      'viewer ' || coalesce((SELECT id || ':' || row FROM v), 'none'),
      (SELECT string_agg(m.id || ':' || m.xmin::text, ',' ORDER BY m.id)
       FROM "Submission" m JOIN s ON m."challengeId" = s."challengeId"
       WHERE m."userId" = (SELECT id FROM v)),
      (SELECT string_agg(e.id || ':' || e.xmin::text, ',' ORDER BY e.id)
       FROM "LeaderboardEntry" e WHERE e."userId" = (SELECT id FROM v)),
      (SELECT string_agg(f.id || ':' || f.xmin::text, ',' ORDER BY f.id)
       FROM "FinalSelection" f WHERE f."userId" = (SELECT id FROM v))
    )) AS version
  WHERE EXISTS (SELECT 1 FROM s)`;

/**
 * Null when the submission does not exist. `sessionToken` is the token of the request's session
 * cookie (unverified: it only chooses whose rows count, and the copy is keyed by the whole cookie).
 */
export async function submissionPageVersion(
  pool: Pick<pg.Pool, 'query'>,
  options: { submissionId: string; sessionToken: string | null },
): Promise<SubmissionPageVersion | null> {
  const result = await pool.query<{ settled: boolean | null; version: string }>({
    name: 'perfjudge-submission-page-version',
    text: VERSION_SQL,
    values: [options.submissionId, options.sessionToken ?? ''],
  });
  const row = result.rows[0];
  if (!row) return null;
  return { settled: row.settled === true, version: row.version };
}
