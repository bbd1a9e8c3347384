// Everything a judging job carries, read back from the database (to enqueue or re-enqueue it).
import type { Db } from './client';

export interface JudgingJobData {
  judgingId: string;
  round: number;
  submissionId: string;
  challenge: { slug: string; version: number };
  target: string;
  patchText: string;
}

export async function getJudgingJob(db: Db, judgingId: string): Promise<JudgingJobData | null> {
  const j = await db.judging.findUnique({
    where: { id: judgingId },
    select: {
      id: true,
      round: true,
      target: { select: { name: true } },
      submission: {
        select: {
          id: true,
          patchText: true,
          challengeVersion: { select: { version: true, challenge: { select: { slug: true } } } },
        },
      },
    },
  });
  if (!j) return null;
  return {
    judgingId: j.id,
    round: j.round,
    submissionId: j.submission.id,
    challenge: {
      slug: j.submission.challengeVersion.challenge.slug,
      version: j.submission.challengeVersion.version,
    },
    target: j.target.name,
    patchText: j.submission.patchText,
  };
}
