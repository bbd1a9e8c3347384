// For "My submissions": per challenge the contestant has an accepted submission in, which one counts
// for the final evaluation (the one they chose, or by default their best provisional score, which is
// their leaderboard row) and whether they may still change it (until the deadline or the close, and
// before the organizers start the final evaluation; lib/server/db/final/select-final-submission.ts decides).
import 'server-only';
import type { Db } from '../client';
import { checkFinalSelectionOpen } from './check-final-selection-open';
import { RefusedError } from '../errors';

export interface MyFinalChoice {
  challenge: { slug: string; title: string };
  /** Their best accepted, not disqualified submission (their leaderboard row). */
  bestSubmissionId: string | null;
  /** The one they chose, when it still qualifies (accepted, not disqualified). */
  selectedSubmissionId: string | null;
  /** What the final evaluation takes: the chosen one, else the best. */
  countingSubmissionId: string | null;
  /** The choice may still be changed. */
  open: boolean;
  /** Why not, in words, when it may not. */
  closedReason: string | null;
}

/** The rule selecting and clearing follow (lib/server/db/final/check-final-selection-open.ts), in its words. */
async function selectionClosedReason(db: Db, slug: string): Promise<string | null> {
  try {
    await checkFinalSelectionOpen(db, slug);
    return null;
  } catch (error) {
    if (error instanceof RefusedError) return error.message;
    throw error;
  }
}

export async function listMyFinalChoices(
  db: Db,
  options: { userId: string },
): Promise<MyFinalChoice[]> {
  const [entries, selections] = await Promise.all([
    db.leaderboardEntry.findMany({
      where: { userId: options.userId },
      select: { submissionId: true, challenge: { select: { slug: true, title: true } } },
    }),
    db.finalSelection.findMany({
      where: { userId: options.userId },
      select: {
        submissionId: true,
        submission: { select: { verdict: true, disqualified: true } },
        challenge: { select: { slug: true, title: true } },
      },
    }),
  ]);
  const bySlug = new Map<
    string,
    Omit<MyFinalChoice, 'open' | 'closedReason' | 'countingSubmissionId'>
  >();
  for (const e of entries)
    bySlug.set(e.challenge.slug, {
      challenge: e.challenge,
      bestSubmissionId: e.submissionId,
      selectedSubmissionId: null,
    });
  for (const s of selections) {
    // A choice that no longer qualifies (disqualified since) counts for nothing: the best does.
    if (s.submission.verdict !== 'ACCEPTED' || s.submission.disqualified) continue;
    const entry = bySlug.get(s.challenge.slug) ?? {
      challenge: s.challenge,
      bestSubmissionId: null,
    };
    bySlug.set(s.challenge.slug, { ...entry, selectedSubmissionId: s.submissionId });
  }
  const choices = await Promise.all(
    [...bySlug.values()].map(async (c): Promise<MyFinalChoice> => {
      const closedReason = await selectionClosedReason(db, c.challenge.slug);
      return {
        ...c,
        countingSubmissionId: c.selectedSubmissionId ?? c.bestSubmissionId,
        open: closedReason === null,
        closedReason,
      };
    }),
  );
  return choices.sort((a, b) => a.challenge.slug.localeCompare(b.challenge.slug));
}
