// The finalists of a challenge: one row per contestant with an accepted, not disqualified
// submission — the one they selected (FinalSelection) while it is still accepted, else their best
// provisional one (the leaderboard's row).
import type { Db, Tx } from '../client';
import { NotFoundError } from '../errors';

export interface Finalist {
  userId: string;
  userName: string;
  /** The submission that goes into the final evaluation. */
  submissionId: string;
  /** Its provisional score. */
  score: number;
  /** The contestant chose it; false: their best provisional submission. */
  selectedExplicitly: boolean;
  bestSubmissionId: string;
  bestScore: number;
}

export async function listFinalists(db: Db | Tx, challengeSlug: string): Promise<Finalist[]> {
  const challenge = await db.challenge.findUnique({
    where: { slug: challengeSlug },
    select: { id: true },
  });
  if (!challenge) throw new NotFoundError(`No challenge ${challengeSlug}`);
  const [best, selections] = await Promise.all([
    db.leaderboardEntry.findMany({
      where: { challengeId: challenge.id },
      select: { userId: true, submissionId: true, score: true, user: { select: { name: true } } },
    }),
    db.finalSelection.findMany({
      where: {
        challengeId: challenge.id,
        // A selection whose submission was disqualified or rejudged away counts no more.
        submission: {
          status: 'DONE',
          verdict: 'ACCEPTED',
          disqualified: false,
          score: { not: null },
        },
      },
      select: { userId: true, submissionId: true, submission: { select: { score: true } } },
    }),
  ]);
  const selected = new Map(selections.map((s) => [s.userId, s]));
  const finalists = best.map((b): Finalist => {
    const s = selected.get(b.userId);
    return {
      userId: b.userId,
      userName: b.user.name,
      submissionId: s?.submissionId ?? b.submissionId,
      score: s?.submission.score ?? b.score,
      selectedExplicitly: s !== undefined,
      bestSubmissionId: b.submissionId,
      bestScore: b.score,
    };
  });
  return finalists.sort(
    (a, b) =>
      b.score - a.score || a.userName.localeCompare(b.userName) || a.userId.localeCompare(b.userId),
  );
}
