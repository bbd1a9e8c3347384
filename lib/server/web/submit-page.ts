// What the submit page needs: whether submissions are open and how much of the hourly quota the
// contestant has left.
import 'server-only';
import { db } from '../db/client';
import { countRecentSubmissions } from '../db/submissions/count-recent-submissions';
import { getContest } from '../db/contest/get-contest';

export interface SubmitPageData {
  slug: string;
  title: string;
  open: boolean;
  closedReason: string | null;
  quota: number;
  usedThisHour: number;
  nextSlotAt: Date | null;
  patchBytes: number;
}

export async function submitPageData(slug: string, userId: string): Promise<SubmitPageData> {
  const contest = await getContest(db(), slug);
  const now = Date.now();
  const recent = await countRecentSubmissions(db(), {
    userId,
    challengeId: contest.challengeId,
    since: new Date(now - 3600_000),
  });
  return {
    slug,
    title: contest.title,
    open: contest.open,
    closedReason: contest.closedReason,
    quota: contest.settings.submissionsPerHour,
    usedThisHour: recent.count,
    nextSlotAt:
      recent.count >= contest.settings.submissionsPerHour && recent.oldest
        ? new Date(recent.oldest.getTime() + 3600_000)
        : null,
    patchBytes: contest.manifest.limits.patchBytes,
  };
}
