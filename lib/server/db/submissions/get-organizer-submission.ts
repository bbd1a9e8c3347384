// One submission as the organizer's diff view shows it: the patch text and what identifies it.
import type { Db } from '../client';
import {
  ORGANIZER_SUBMISSION_SELECT,
  toOrganizerSubmissionSummary,
  type OrganizerSubmissionSummary,
} from './list-submissions-for-organizer';

export interface OrganizerSubmission extends OrganizerSubmissionSummary {
  disqualifiedReason: string | null;
  patchText: string;
}

export async function getOrganizerSubmission(
  db: Db,
  submissionId: string,
): Promise<OrganizerSubmission | null> {
  const s = await db.submission.findUnique({
    where: { id: submissionId },
    select: { ...ORGANIZER_SUBMISSION_SELECT, disqualifiedReason: true, patchText: true },
  });
  if (!s) return null;
  return {
    ...toOrganizerSubmissionSummary(s),
    disqualifiedReason: s.disqualifiedReason,
    patchText: s.patchText,
  };
}
