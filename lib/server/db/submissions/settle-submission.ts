// Derives a submission's status, verdict and combined score from its judgings, then its leaderboard
// row. Runs inside the transaction that changed a judging, with the submission row locked.
import { isContestantFault } from '../../../../contracts';
import { combineSpeedups } from '../../../core/stats/combine-speedups';
import type { Tx } from '../client';
import type { SubmissionStatus, Verdict } from '../generated/prisma/enums';
import { refreshLeaderboardEntry } from '../leaderboard/refresh-leaderboard-entry';

export interface SettledSubmission {
  id: string;
  status: SubmissionStatus;
  verdict: Verdict | null;
  score: number | null;
}

export async function settleSubmission(tx: Tx, submissionId: string): Promise<SettledSubmission> {
  const submission = await tx.submission.findUniqueOrThrow({
    where: { id: submissionId },
    select: {
      challengeId: true,
      userId: true,
      supersededById: true,
      challengeVersion: { select: { scoringFormula: true } },
      judgings: {
        select: {
          status: true,
          verdict: true,
          speedup: true,
          target: { select: { name: true } },
        },
      },
    },
  });
  const judgings = [...submission.judgings].sort((a, b) =>
    a.target.name.localeCompare(b.target.name),
  );
  let status: SubmissionStatus;
  let verdict: Verdict | null = null;
  let score: number | null = null;
  // CANCELLED judgings are settled too: another target's contestant fault already decided.
  if (judgings.some((j) => j.status !== 'DONE' && j.status !== 'CANCELLED')) {
    // Runners only waiting for the host lock have not started judging it yet.
    status = judgings.some((j) => j.status !== 'QUEUED' && j.status !== 'WAITING')
      ? 'JUDGING'
      : 'QUEUED';
  } else if (submission.supersededById !== null) {
    // Replaced by the author's newer submission before any target was judged: no verdict.
    status = 'DONE';
  } else if (judgings.every((j) => j.verdict === 'ACCEPTED' && j.speedup !== null)) {
    status = 'DONE';
    verdict = 'ACCEPTED';
    score = combineSpeedups(
      submission.challengeVersion.scoringFormula,
      judgings.map((j) => j.speedup as number),
    );
  } else {
    // A contestant's fault on any target is final; only when there is none is it the platform's.
    const fault = judgings.find((j) => j.verdict !== null && isContestantFault(j.verdict));
    verdict = fault?.verdict ?? 'JUDGE_ERROR';
    status = verdict === 'JUDGE_ERROR' ? 'FAILED' : 'DONE';
  }
  await tx.submission.update({
    where: { id: submissionId },
    data: {
      status,
      verdict,
      score,
      judgedAt: status === 'DONE' || status === 'FAILED' ? new Date() : null,
    },
  });
  await refreshLeaderboardEntry(tx, {
    challengeId: submission.challengeId,
    userId: submission.userId,
  });
  return { id: submissionId, status, verdict, score };
}
