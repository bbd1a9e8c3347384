// Stores a submission and one judging per target of its challenge version, in one transaction.
import { createHash } from 'node:crypto';
import type { JobBenchmark, JudgingJobSettings } from '../../../../contracts';
import { manifestBenchmark, resolveBenchmark } from '../../../core/challenge/benchmark-definition';
import type { Db } from '../client';
import { NotFoundError } from '../errors';
import { fairQueuePriority } from '../judgings/fair-queue-priority';
import { CHALLENGE_SETTINGS_SELECT, toJudgingJobSettings } from '../judgings/judging-job-settings';

export interface CreateSubmissionOptions {
  userId: string;
  challengeSlug: string;
  /** The challenge version judged; the latest when omitted. */
  version?: number;
  patchText: string;
}

export interface CreatedSubmission {
  submissionId: string;
  challenge: { slug: string; version: number };
  /** What the caller enqueues, one job per judging (job id from judgingId and round). */
  judgings: { judgingId: string; target: string; round: number }[];
  /** The organizer's judging settings, for the jobs (absent when none is set). */
  settings?: JudgingJobSettings;
  /** The contest's benchmark definition from the database, for the jobs (lib/core/challenge/benchmark-definition.ts). */
  benchmark: JobBenchmark;
  /** The judgings' place in the fair queue (lib/server/db/judgings/fair-queue-priority.ts). */
  queuePriority: number;
}

export async function createSubmission(
  db: Db,
  options: CreateSubmissionOptions,
): Promise<CreatedSubmission> {
  const version = await db.challengeVersion.findFirst({
    where: {
      challenge: { slug: options.challengeSlug },
      version: options.version,
    },
    orderBy: { version: 'desc' },
    select: {
      id: true,
      version: true,
      manifest: true,
      challengeId: true,
      targets: { select: { id: true, name: true }, orderBy: { name: 'asc' } },
      challenge: { select: CHALLENGE_SETTINGS_SELECT },
    },
  });
  if (!version)
    throw new NotFoundError(
      `No challenge ${options.challengeSlug}${options.version !== undefined ? ` version ${options.version}` : ''}`,
    );
  if (version.targets.length === 0)
    throw new NotFoundError(
      `Challenge ${options.challengeSlug} v${version.version} has no targets`,
    );

  const queuePriority = await fairQueuePriority(db, {
    userId: options.userId,
    challengeId: version.challengeId,
  });
  const patch = Buffer.from(options.patchText, 'utf8');
  // A nested create is one statement batch in one transaction: the judgings exist iff the submission does.
  const submission = await db.submission.create({
    data: {
      userId: options.userId,
      challengeId: version.challengeId,
      challengeVersionId: version.id,
      patchText: options.patchText,
      patchSha256: createHash('sha256').update(patch).digest('hex'),
      patchBytes: patch.length,
      judgings: { create: version.targets.map((t) => ({ targetId: t.id, queuePriority })) },
    },
    select: {
      id: true,
      judgings: { select: { id: true, round: true, target: { select: { name: true } } } },
    },
  });
  const settings = toJudgingJobSettings(version.challenge);
  return {
    submissionId: submission.id,
    challenge: { slug: options.challengeSlug, version: version.version },
    judgings: submission.judgings
      .map((j) => ({ judgingId: j.id, target: j.target.name, round: j.round }))
      .sort((a, b) => a.target.localeCompare(b.target)),
    settings,
    benchmark: resolveBenchmark(manifestBenchmark(version.manifest), version.challenge),
    queuePriority,
  };
}
