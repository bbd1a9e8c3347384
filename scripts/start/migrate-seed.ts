// The database's schema and the contest's rows: migrations, the seed, and the benchmark definition.
import { parseByteSize, type JobBenchmark } from '../../contracts';
import { describeDefinition } from '../../lib/core/challenge/benchmark-definition';
import { ConfigError } from '../../lib/core/config/env';
import type { StartEnv } from '../../lib/core/config/start-env';
import { createDbClient } from '../../lib/server/db/client';
import { applyMigrations } from '../../lib/server/db/migrate';
import { seed } from '../../prisma/seed';
import { CHALLENGES, type StartPlan } from './plan';
import { say, warn } from './say';

/** The contest's development benchmark size, when PERFJUDGE_INPUT_SIZE asks for another. */
function developmentBenchmarkBytes(config: StartEnv, manifestSize: number): number | undefined {
  if (config.PERFJUDGE_INPUT_SIZE === 'manifest') return undefined;
  const bytes = parseByteSize(config.PERFJUDGE_INPUT_SIZE)!;
  return bytes === manifestSize ? undefined : bytes;
}

/**
 * Migrates, seeds, and writes the contest's benchmark definition if it has none: this start's
 * development size (PERFJUDGE_INPUT_SIZE), seed and pair budget (PERFJUDGE_RUNS). A definition
 * written earlier stands: where this start asks for another, it says so; the organizer console
 * changes it. Returns the main challenge's definition, the one every job carries.
 */
export async function migrateAndSeed(plan: StartPlan, databaseUrl: string): Promise<JobBenchmark> {
  say('migrating the database');
  const applied = await applyMigrations({ connectionString: databaseUrl });
  say(
    applied.length
      ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'database schema up to date',
  );
  const database = createDbClient(databaseUrl);
  try {
    const { config } = plan;
    const report = await seed(database, {
      organizer: plan.organizer,
      challenges: CHALLENGES,
      benchmark: ({ size, seedEnv }) => ({
        sizeBytes: developmentBenchmarkBytes(config, size) ?? size,
        seed: plan.seeds[seedEnv],
        ...(config.PERFJUDGE_RUNS !== undefined ? { maxPairs: config.PERFJUDGE_RUNS } : {}),
      }),
    });
    for (const c of report.challenges) {
      say(`challenge ${c.slug} v${c.version}: ${c.created ? 'registered' : 'already registered'}`);
      say(`${c.slug}: benchmark definition ${describeDefinition(c.benchmark)} (in the database)`);
      if (c.disagreements.length)
        warn(
          `${c.slug}: this start asks for another benchmark definition (${c.disagreements.join('; ')}): ` +
            "using the database's, on which every recorded score was timed; change it in the organizer " +
            'console (Settings), which rejudges everything or starts a new leaderboard',
        );
    }
    const main = report.challenges.find((c) => c.slug === plan.challenge.manifest.slug);
    if (!main) throw new ConfigError(`${plan.challenge.manifest.slug} was not seeded`);
    return main.benchmark;
  } finally {
    await database.$disconnect();
  }
}
