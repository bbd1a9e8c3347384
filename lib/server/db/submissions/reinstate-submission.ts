// An organizer takes back a disqualification: the submission counts again, so its owner's
// leaderboard row is recomputed in the same transaction.
import type { Db } from '../client';
import { setDisqualified, type DisqualifySubmissionOptions } from './disqualify-submission';

export type ReinstateSubmissionOptions = DisqualifySubmissionOptions;

export function reinstateSubmission(db: Db, options: ReinstateSubmissionOptions): Promise<void> {
  return setDisqualified(db, options, false);
}
