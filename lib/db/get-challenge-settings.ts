// The organizer's own settings of a challenge as stored (null: not set, the manifest decides), for
// the settings form. The seed's value never leaves the database this way: only whether it is set.
import type { Db } from './client';

export interface ChallengeSettingsValues {
  deadline: Date | null;
  submissionsPerHour: number | null;
  precision: number | null;
  benchmarkBytes: number | null;
  benchmarkSeedSet: boolean;
  /** Every target judged even after a contestant fault on one (default: the others are cancelled). */
  judgeAllTargets: boolean;
}

export async function getChallengeSettings(
  db: Db,
  slug: string,
): Promise<ChallengeSettingsValues | null> {
  const c = await db.challenge.findUnique({
    where: { slug },
    select: {
      deadline: true,
      submissionsPerHour: true,
      precision: true,
      benchmarkBytes: true,
      benchmarkSeed: true,
      judgeAllTargets: true,
    },
  });
  if (!c) return null;
  const { benchmarkSeed, ...rest } = c;
  return { ...rest, benchmarkSeedSet: benchmarkSeed !== null };
}
