// The full build log of one target's judging (the solution's, as the judge captured it), read
// straight out of the stored result so the rest of a large result is not loaded. Null when there is
// no such submission or target, the viewer may not see it, or the judging has no build log yet.
import 'server-only';
import { canViewPatch } from '../../../core/access/patch-access';
import type { Db } from '../client';
import type { SubmissionViewer } from '../submissions/get-submission-view';

export interface JudgingBuildLog {
  target: string;
  side: 'solution' | 'baseline';
  log: string;
}

export async function getJudgingBuildLog(
  db: Db,
  options: {
    submissionId: string;
    target: string;
    side?: 'solution' | 'baseline';
    viewer: SubmissionViewer | null;
  },
): Promise<JudgingBuildLog | null> {
  const side = options.side ?? 'solution';
  const rows = await db.$queryRaw<
    { userId: string; solutionsPublishedAt: Date | null; log: string | null }[]
  >`
    SELECT s."userId", c."solutionsPublishedAt",
           j.result #>> ARRAY['stages', 'build', ${side}, 'log'] AS log
    FROM "Submission" s
    JOIN "Challenge" c ON c.id = s."challengeId"
    JOIN "Judging" j ON j."submissionId" = s.id
    JOIN "Target" t ON t.id = j."targetId"
    WHERE s.id = ${options.submissionId} AND t.name = ${options.target} AND j.status = 'DONE'`;
  const row = rows[0];
  if (!row || row.log === null) return null;
  if (!canViewPatch(options.viewer, row)) return null;
  return { target: options.target, side, log: row.log };
}
