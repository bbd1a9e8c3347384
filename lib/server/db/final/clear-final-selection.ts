// A contestant withdraws their final selection: their best provisional score counts again.
import { checkFinalSelectionOpen } from './check-final-selection-open';
import type { Db } from '../client';

export interface ClearFinalSelectionOptions {
  userId: string;
  challengeSlug: string;
  now?: Date;
}

export async function clearFinalSelection(
  db: Db,
  options: ClearFinalSelectionOptions,
): Promise<void> {
  const contest = await checkFinalSelectionOpen(db, options.challengeSlug, options.now);
  await db.finalSelection.deleteMany({
    where: { challengeId: contest.challengeId, userId: options.userId },
  });
}
