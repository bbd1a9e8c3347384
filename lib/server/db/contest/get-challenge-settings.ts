// The organizer's own settings of a challenge as stored (null: not set, the manifest decides), for
// the settings form. The seed's value never leaves the database this way: only whether it is set.
import type { Db } from '../client';

export interface ChallengeSettingsValues {
  deadline: Date | null;
  submissionsPerHour: number | null;
  precision: number | null;
  benchmarkBytes: number | null;
  benchmarkSeedSet: boolean;
  /** Every target judged even after a contestant fault on one (default: the others are cancelled). */
  judgeAllTargets: boolean;
  /** A contestant's newer submission supersedes their own older one still queued. */
  supersedeQueued: boolean;
  /** The profile stage runs cachegrind (default); off spares the judge hosts its rebuild and runs. */
  cachegrind: boolean;
}

/** Prisma `select` for the settings an organizer edits (update-contest-settings compares them). */
export const CONTEST_SETTINGS_SELECT = {
  deadline: true,
  submissionsPerHour: true,
  precision: true,
  benchmarkBytes: true,
  benchmarkSeed: true,
  judgeAllTargets: true,
  supersedeQueued: true,
  cachegrind: true,
} as const;

export async function getChallengeSettings(
  db: Db,
  slug: string,
): Promise<ChallengeSettingsValues | null> {
  const c = await db.challenge.findUnique({
    where: { slug },
    select: CONTEST_SETTINGS_SELECT,
  });
  if (!c) return null;
  const { benchmarkSeed, ...rest } = c;
  return { ...rest, benchmarkSeedSet: benchmarkSeed !== null };
}
