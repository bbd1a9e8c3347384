// A submission's patch text for one viewer, by the one patch rule (lib/core/access/patch-access.ts);
// null when it does not exist or the viewer may not read it (the caller answers 404 either way).
import 'server-only';
import { canViewPatch } from '../../../core/access/patch-access';
import type { Db } from '../client';
import type { SubmissionViewer } from './get-submission-view';

export interface SubmissionPatch {
  id: string;
  patchText: string;
  patchBytes: number;
}

export async function getSubmissionPatch(
  db: Db,
  options: { submissionId: string; viewer: SubmissionViewer | null },
): Promise<SubmissionPatch | null> {
  const row = await db.submission.findUnique({
    where: { id: options.submissionId },
    select: {
      id: true,
      userId: true,
      patchText: true,
      patchBytes: true,
      challenge: { select: { solutionsPublishedAt: true } },
    },
  });
  if (!row) return null;
  const subject = { userId: row.userId, solutionsPublishedAt: row.challenge.solutionsPublishedAt };
  if (!canViewPatch(options.viewer, subject)) return null;
  return { id: row.id, patchText: row.patchText, patchBytes: row.patchBytes };
}
