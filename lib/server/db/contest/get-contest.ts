// A challenge as a contest right now: its latest manifest, the organizer's settings over the
// manifest's defaults, and whether it takes submissions. Shared by the challenge page, submitting
// (web and API), the leaderboard and the console.
import { manifestSchema, type Manifest } from '../../../../contracts';
import type { Db } from '../client';
import { NotFoundError } from '../errors';
import { contestDeadline, contestState } from '../../../core/challenge/contest-state';

export interface ContestSettings {
  deadline: Date | null;
  submissionsPerHour: number;
  precision: number;
  /** Null: the manifest's size. */
  benchmarkBytes: number | null;
  /** True when the organizer set a seed (its value is never sent to pages). */
  benchmarkSeedSet: boolean;
}

export interface Contest {
  challengeId: string;
  slug: string;
  title: string;
  version: number;
  challengeVersionId: string;
  manifest: Manifest;
  settings: ContestSettings;
  closedAt: Date | null;
  solutionsPublishedAt: Date | null;
  /** Submissions are taken: not closed, deadline not passed. */
  open: boolean;
  /** Why it is not open, in words. */
  closedReason: string | null;
}

export async function getContest(db: Db, slug: string, now = new Date()): Promise<Contest> {
  const challenge = await db.challenge.findUnique({
    where: { slug },
    select: {
      id: true,
      slug: true,
      title: true,
      deadline: true,
      submissionsPerHour: true,
      precision: true,
      benchmarkBytes: true,
      benchmarkSeed: true,
      closedAt: true,
      solutionsPublishedAt: true,
      versions: {
        orderBy: { version: 'desc' },
        take: 1,
        select: { id: true, version: true, manifest: true },
      },
    },
  });
  const latest = challenge?.versions[0];
  if (!challenge || !latest) throw new NotFoundError(`No challenge ${slug}`);
  const manifest = manifestSchema.parse(latest.manifest);
  const deadline = contestDeadline(challenge.deadline, manifest);
  const { closedReason } = contestState({ closedAt: challenge.closedAt, deadline }, now);
  return {
    challengeId: challenge.id,
    slug: challenge.slug,
    title: challenge.title,
    version: latest.version,
    challengeVersionId: latest.id,
    manifest,
    settings: {
      deadline,
      submissionsPerHour: challenge.submissionsPerHour ?? manifest.quota.submissionsPerHour,
      precision: challenge.precision ?? manifest.runPolicy.precision,
      benchmarkBytes: challenge.benchmarkBytes,
      benchmarkSeedSet: challenge.benchmarkSeed !== null,
    },
    closedAt: challenge.closedAt,
    solutionsPublishedAt: challenge.solutionsPublishedAt,
    open: closedReason === null,
    closedReason,
  };
}
