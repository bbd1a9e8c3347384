// An organizer changes a challenge's contest settings (deadline, quota, precision, benchmark size and
// seed). Validated here again whatever the caller checked; the audit row says what changed, never
// the seed itself. A change of the benchmark definition (size or seed) must say what becomes of the
// scores already recorded: every submission rejudged on the new one (the caller enqueues), or a new
// leaderboard from now on (the earlier submissions keep their results, unranked). It is a new
// revision of the definition, official (no development size or pair budget), audited on its own.
import { z } from 'zod';
import { MAX_BENCHMARK_BYTES, MIN_BENCHMARK_BYTES } from '../../../../contracts';
import type { Db } from '../client';
import { appendAuditLog } from '../audit/append-audit-log';
import { MAX_SUBMISSIONS_PER_HOUR } from './contest-settings-limits';
import { CONTEST_SETTINGS_SELECT } from './get-challenge-settings';
import { NotFoundError, RefusedError } from '../errors';

export const contestSettingsUpdateSchema = z.strictObject({
  /** Null: no deadline. */
  deadline: z.date().nullable(),
  /** Null: the manifest's quota. */
  submissionsPerHour: z.number().int().min(1).max(MAX_SUBMISSIONS_PER_HOUR).nullable(),
  /** Null: the manifest's precision. */
  precision: z.number().positive().max(0.5).nullable(),
  /** Null: the manifest's benchmark size. */
  benchmarkBytes: z.number().int().min(MIN_BENCHMARK_BYTES).max(MAX_BENCHMARK_BYTES).nullable(),
  /** Undefined keeps the seed, null removes it (back to the runners' environment), a string sets it. */
  benchmarkSeed: z.string().min(8).max(4096).nullable().optional(),
  /** Judge every target even after one failed for the contestant; undefined keeps it. */
  judgeAllTargets: z.boolean().optional(),
  /** A newer submission supersedes the author's own still-queued one; undefined keeps it. */
  supersedeQueued: z.boolean().optional(),
  /** The profile stage runs cachegrind; undefined keeps it. */
  cachegrind: z.boolean().optional(),
});
export type ContestSettingsUpdate = z.infer<typeof contestSettingsUpdateSchema>;

/** What becomes of the recorded scores when the benchmark definition changes. */
export type BenchmarkScores = 'rejudge' | 'new-board';

export interface UpdateContestSettingsOptions {
  actorId: string;
  slug: string;
  settings: ContestSettingsUpdate;
  /** Required when the benchmark size or seed changes. */
  benchmarkScores?: BenchmarkScores;
  reason?: string;
}

export interface UpdatedContestSettings {
  /** Names of the settings whose value changed. */
  changed: string[];
  /** Set when the benchmark definition changed: the caller rejudges every submission for 'rejudge'. */
  benchmark?: { revision: number; scores: BenchmarkScores };
}

type ParsedSettings = ReturnType<typeof contestSettingsUpdateSchema.parse>;
type StoredSettings = { deadline: Date | null } & Record<
  | 'submissionsPerHour'
  | 'precision'
  | 'benchmarkBytes'
  | 'judgeAllTargets'
  | 'supersedeQueued'
  | 'cachegrind'
  | 'benchmarkSeed',
  unknown
>;

/** Each setting whose value changes, from and to (the seed only as set or unset). */
function settingChanges(
  before: StoredSettings,
  settings: ParsedSettings,
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const compare = (name: string, from: unknown, to: unknown) => {
    if (from !== to) changes[name] = { from, to };
  };
  compare(
    'deadline',
    before.deadline?.toISOString() ?? null,
    settings.deadline?.toISOString() ?? null,
  );
  compare('submissionsPerHour', before.submissionsPerHour, settings.submissionsPerHour);
  compare('precision', before.precision, settings.precision);
  compare('benchmarkBytes', before.benchmarkBytes, settings.benchmarkBytes);
  if (settings.judgeAllTargets !== undefined)
    compare('judgeAllTargets', before.judgeAllTargets, settings.judgeAllTargets);
  if (settings.supersedeQueued !== undefined)
    compare('supersedeQueued', before.supersedeQueued, settings.supersedeQueued);
  if (settings.cachegrind !== undefined)
    compare('cachegrind', before.cachegrind, settings.cachegrind);
  if (settings.benchmarkSeed !== undefined && settings.benchmarkSeed !== before.benchmarkSeed)
    // Whether it is set, never the value: the audit log is readable by every organizer.
    changes.benchmarkSeed = {
      from: before.benchmarkSeed === null ? 'unset' : 'set',
      to: settings.benchmarkSeed === null ? 'unset' : 'set (new value)',
    };
  return changes;
}

export async function updateContestSettings(
  db: Db,
  options: UpdateContestSettingsOptions,
): Promise<UpdatedContestSettings> {
  const settings = contestSettingsUpdateSchema.parse(options.settings);
  return db.$transaction(async (tx) => {
    const before = await tx.challenge.findUnique({
      where: { slug: options.slug },
      select: { id: true, ...CONTEST_SETTINGS_SELECT },
    });
    if (!before) throw new NotFoundError(`No challenge ${options.slug}`);
    const changes = settingChanges(before, settings);
    const changed = Object.keys(changes);
    if (changed.length === 0) return { changed };
    const definitionChanges =
      changed.includes('benchmarkBytes') || changed.includes('benchmarkSeed');
    const scores = options.benchmarkScores;
    if (definitionChanges && !scores)
      throw new RefusedError(
        'Changing the benchmark size or seed changes what every score is timed on: choose whether ' +
          'every submission is rejudged on the new definition or a new leaderboard starts now.',
        'benchmark-scores',
      );
    const updated = await tx.challenge.update({
      where: { id: before.id },
      data: {
        deadline: settings.deadline,
        submissionsPerHour: settings.submissionsPerHour,
        precision: settings.precision,
        benchmarkBytes: settings.benchmarkBytes,
        benchmarkSeed: settings.benchmarkSeed,
        judgeAllTargets: settings.judgeAllTargets,
        supersedeQueued: settings.supersedeQueued,
        cachegrind: settings.cachegrind,
        ...(definitionChanges
          ? {
              benchmarkRevision: { increment: 1 },
              benchmarkDevelopment: false,
              benchmarkMaxPairs: null,
              ...(scores === 'new-board' ? { boardSince: new Date() } : {}),
            }
          : {}),
      },
      select: { benchmarkRevision: true },
    });
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: 'challenge.settings',
      subjectType: 'challenge',
      subjectId: options.slug,
      ...(options.reason ? { reason: options.reason } : {}),
      payload: changes,
    });
    if (!definitionChanges || !scores) return { changed };
    // A new board ranks only what is judged from now on; a rejudge refreshes each row itself.
    if (scores === 'new-board')
      await tx.leaderboardEntry.deleteMany({ where: { challengeId: before.id } });
    await appendAuditLog(tx, {
      actorId: options.actorId,
      action: 'benchmark.change',
      subjectType: 'challenge',
      subjectId: options.slug,
      ...(options.reason ? { reason: options.reason } : {}),
      payload: {
        revision: updated.benchmarkRevision,
        scores:
          scores === 'rejudge' ? 'every submission rejudged' : 'a new leaderboard from now on',
        ...(changes.benchmarkBytes ? { benchmarkBytes: changes.benchmarkBytes } : {}),
        ...(changes.benchmarkSeed ? { benchmarkSeed: changes.benchmarkSeed } : {}),
      },
    });
    return { changed, benchmark: { revision: updated.benchmarkRevision, scores } };
  });
}
