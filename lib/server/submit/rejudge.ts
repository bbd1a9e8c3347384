// An organizer's rejudge of one submission or of a whole challenge: a new round in the database
// (audit-logged), the previous round's waiting jobs withdrawn, the new round queued.
import { judgingScoreJobId, scoreJobId } from '../../../contracts';
import type { Db } from '../db/client';
import { requestRejudge } from '../db/judgings/request-rejudge';
import { withTimeout, type QueueSet } from '../queue/producer';
import { enqueueSubmission } from './enqueue-submission';

export type RejudgeOptions = {
  db: Db;
  queues: QueueSet;
  /** The organizer's user id (the audit log names them). */
  actorId: string;
  reason: string;
  onEnqueueError?: (error: Error, submissionId: string) => void;
} & ({ submissionId: string } | { challengeSlug: string });

export interface RejudgeOutcome {
  submissions: number;
  judgings: number;
  /** Submissions Redis took now; the others are queued by the reconciler. */
  queued: number;
}

/**
 * Below new submissions (BullMQ runs the lowest priority first; a new submission gets 1 + its
 * author's share of the queue, lib/server/db/judgings/fair-queue-priority.ts), so a challenge-wide rejudge does
 * not block the contest.
 */
export const REJUDGE_PRIORITY = 1000;

export async function rejudge(options: RejudgeOptions): Promise<RejudgeOutcome> {
  const { db, queues } = options;
  const judgings = await requestRejudge(db, {
    actorId: options.actorId,
    reason: options.reason,
    ...('submissionId' in options
      ? { submissionId: options.submissionId }
      : { challengeSlug: options.challengeSlug }),
  });
  const rounds = new Map<string, number>();
  const judgingsOf = new Map<string, string[]>();
  for (const j of judgings) {
    rounds.set(j.submissionId, Math.max(rounds.get(j.submissionId) ?? 0, j.round));
    judgingsOf.set(j.submissionId, [...(judgingsOf.get(j.submissionId) ?? []), j.judgingId]);
  }

  let queued = 0;
  for (const [submissionId, round] of rounds) {
    try {
      // The old round's result would be ignored anyway; withdrawing its jobs saves the runners'
      // time. A job a runner holds right now cannot be removed (BullMQ answers 0): it finishes and
      // the scorer discards its stale result.
      if (round > 0) {
        // One flow per judging, or (queued before per-target recording) one for the submission.
        const parents = [
          scoreJobId(submissionId, round - 1),
          ...(judgingsOf.get(submissionId) ?? []).map((id) => judgingScoreJobId(id, round - 1)),
        ];
        await withTimeout(
          Promise.all(
            parents.map((id) => queues.scoreQueue().remove(id, { removeChildren: true })),
          ),
          queues.enqueueTimeoutMs,
          `Withdrawing round ${round - 1} of submission ${submissionId}`,
        );
      }
      await enqueueSubmission(db, queues, submissionId, {
        priority: 'challengeSlug' in options ? REJUDGE_PRIORITY : 0,
      });
      queued++;
    } catch (error) {
      options.onEnqueueError?.(error as Error, submissionId);
    }
  }
  return { submissions: rounds.size, judgings: judgings.length, queued };
}
