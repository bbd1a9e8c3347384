// Everything a judging job carries, read back from the database (to enqueue or re-enqueue it).
import type { JobBenchmark, JudgingJobSettings } from '../../../../contracts';
import { manifestBenchmark, resolveBenchmark } from '../../../core/challenge/benchmark-definition';
import type { Db } from '../client';
import { CHALLENGE_SETTINGS_SELECT, toJudgingJobSettings } from './judging-job-settings';

export interface JudgingJobData {
  judgingId: string;
  round: number;
  submissionId: string;
  challenge: { slug: string; version: number };
  target: string;
  patchText: string;
  /** The organizer's settings as they are now (a rejudge after a change judges with the new ones). */
  settings?: JudgingJobSettings;
  /** The contest's benchmark definition as the database has it now (lib/core/challenge/benchmark-definition.ts). */
  benchmark: JobBenchmark;
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
          challengeVersion: {
            select: {
              version: true,
              manifest: true,
              challenge: { select: { slug: true, ...CHALLENGE_SETTINGS_SELECT } },
            },
          },
        },
      },
    },
  });
  if (!j) return null;
  const settings = toJudgingJobSettings(j.submission.challengeVersion.challenge);
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
    settings,
    benchmark: resolveBenchmark(
      manifestBenchmark(j.submission.challengeVersion.manifest),
      j.submission.challengeVersion.challenge,
    ),
  };
}
