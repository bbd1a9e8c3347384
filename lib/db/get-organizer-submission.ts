// One submission as the organizer's diff view shows it: the patch text and what identifies it.
import type { Verdict } from '../../contracts';
import type { Db } from './client';

export interface OrganizerSubmission {
  id: string;
  createdAt: Date;
  contestant: { name: string; email: string };
  challengeSlug: string;
  status: 'QUEUED' | 'JUDGING' | 'DONE' | 'FAILED';
  verdict: Verdict | null;
  score: number | null;
  disqualified: boolean;
  disqualifiedReason: string | null;
  patchText: string;
  patchBytes: number;
}

export async function getOrganizerSubmission(
  db: Db,
  submissionId: string,
): Promise<OrganizerSubmission | null> {
  const s = await db.submission.findUnique({
    where: { id: submissionId },
    select: {
      id: true,
      createdAt: true,
      status: true,
      verdict: true,
      score: true,
      disqualified: true,
      disqualifiedReason: true,
      patchText: true,
      patchBytes: true,
      user: { select: { name: true, email: true } },
      challenge: { select: { slug: true } },
    },
  });
  if (!s) return null;
  const { user, challenge, ...rest } = s;
  return { ...rest, contestant: user, challengeSlug: challenge.slug };
}
