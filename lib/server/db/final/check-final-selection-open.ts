// The contest timeline of the final selection: a contestant may choose which accepted submission
// counts until the deadline, or until the organizers close the contest, and never once a final
// evaluation has started (its entrants are fixed then).
import type { Db } from '../client';
import { RefusedError } from '../errors';
import { getContest, type Contest } from '../contest/get-contest';

/** Returns the contest when a selection may change now; throws RefusedError saying why not. */
export async function checkFinalSelectionOpen(
  db: Db,
  challengeSlug: string,
  now = new Date(),
): Promise<Contest> {
  const contest = await getContest(db, challengeSlug, now);
  if (!contest.open)
    throw new RefusedError(
      `The final selection is closed: ${contest.closedReason ?? 'the contest is over.'}`,
      'selection-closed',
    );
  const started = await db.finalEvaluation.count({
    where: { challengeId: contest.challengeId, status: { in: ['RUNNING', 'DONE'] } },
  });
  if (started > 0)
    throw new RefusedError(
      'The final selection is closed: the final evaluation has started.',
      'selection-closed',
    );
  return contest;
}
