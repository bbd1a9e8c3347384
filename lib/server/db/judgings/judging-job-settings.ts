// The organizer's settings of a Challenge row as a judging job carries them: only those set, so a
// job for a challenge without settings looks exactly like one from before settings existed.
import type { JudgingJobSettings } from '../../../../contracts';

export interface ChallengeSettingsRow {
  precision: number | null;
  benchmarkBytes: number | null;
  benchmarkSeed: string | null;
  cachegrind: boolean;
}

/** Prisma `select` for the benchmark definition's columns (lib/core/challenge/benchmark-definition.ts). */
export const BENCHMARK_DEFINITION_SELECT = {
  benchmarkBytes: true,
  benchmarkSeed: true,
  benchmarkDevelopment: true,
  benchmarkMaxPairs: true,
  benchmarkGenerator: true,
  benchmarkRevision: true,
} as const;

/** Prisma `select` for the columns toJudgingJobSettings and resolveBenchmark read. */
export const CHALLENGE_SETTINGS_SELECT = {
  precision: true,
  cachegrind: true,
  ...BENCHMARK_DEFINITION_SELECT,
} as const;

export function toJudgingJobSettings(row: ChallengeSettingsRow): JudgingJobSettings | undefined {
  const settings: JudgingJobSettings = {
    ...(row.precision !== null ? { precision: row.precision } : {}),
    ...(row.benchmarkBytes !== null ? { benchmarkBytes: row.benchmarkBytes } : {}),
    ...(row.benchmarkSeed !== null ? { benchmarkSeed: row.benchmarkSeed } : {}),
    // On is the manifest's word (deterministic mode): only a contest that turned it off says so.
    ...(row.cachegrind ? {} : { cachegrind: false }),
  };
  return Object.keys(settings).length > 0 ? settings : undefined;
}
