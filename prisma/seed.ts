// The seed: the wordcount challenge from its manifest, its benchmark definition (written once: the
// manifest's size, or PERFJUDGE_BENCHMARK_SIZE, and the seed variable), and the organizer account
// from PERFJUDGE_ORGANIZER_EMAIL / PERFJUDGE_ORGANIZER_PASSWORD. Idempotent. `npm run db:seed`.
import { pathToFileURL } from 'node:url';
import type { JobBenchmark } from '../contracts';
import {
  describeDefinition,
  type BenchmarkProposal,
} from '../lib/core/challenge/benchmark-definition';
import { challengeCode } from '../lib/core/challenge/challenge-code';
import { loadChallenge } from '../lib/core/challenge/load-manifest';
import { environmentBenchmarkProposal } from '../lib/core/config/benchmark-environment';
import { ConfigError, env } from '../lib/core/config/env';
import { appendAuditLog } from '../lib/server/db/audit/append-audit-log';
import { db, type Db } from '../lib/server/db/client';
import { defineBenchmarkOnce } from '../lib/server/db/contest/contest-benchmark';
import { upsertChallengeVersion } from '../lib/server/db/contest/upsert-challenge-version';
import { upsertOrganizer } from '../lib/server/db/accounts/upsert-organizer';
import { DEFAULT_CHALLENGE } from '../lib/core/challenge/default-challenge';

export interface SeedOptions {
  organizer?: { email: string; password: string };
  /** Challenge slugs (folders under challenges/). */
  challenges?: string[];
  /**
   * What a contest's benchmark definition should be if it has none yet, given the manifest's
   * (npm start's development size and seeds); default this process's environment.
   */
  benchmark?: (manifest: { size: number; seedEnv: string }) => BenchmarkProposal;
}

export interface SeedReport {
  challenges: {
    slug: string;
    version: number;
    created: boolean;
    /** The contest's benchmark definition, as the database has it after the seed. */
    benchmark: JobBenchmark;
    /** Where the proposal differed from a definition written earlier (which stands). */
    disagreements: string[];
  }[];
  organizer: { userId: string; created: boolean } | null;
}

export async function seed(database: Db, options: SeedOptions = {}): Promise<SeedReport> {
  const report: SeedReport = { challenges: [], organizer: null };
  for (const slug of options.challenges ?? [DEFAULT_CHALLENGE]) {
    const { manifest } = await loadChallenge(slug);
    const { challengeVersionId, created } = await upsertChallengeVersion(database, manifest);
    if (created)
      await appendAuditLog(database, {
        actorId: null,
        action: 'challenge.register',
        subjectType: 'challenge-version',
        subjectId: challengeVersionId,
        payload: { slug, version: manifest.version },
      });
    const proposal = options.benchmark
      ? options.benchmark(manifest.inputs.benchmark)
      : environmentBenchmarkProposal(manifest.inputs.benchmark.seedEnv);
    const { generatorVersion } = await challengeCode(slug);
    const { definition, disagreements } = await defineBenchmarkOnce(database, slug, {
      ...proposal,
      generatorVersion,
    });
    report.challenges.push({
      slug,
      version: manifest.version,
      created,
      benchmark: definition,
      disagreements,
    });
  }
  if (options.organizer) report.organizer = await upsertOrganizer(database, options.organizer);
  return report;
}

function organizerFromEnv(): SeedOptions['organizer'] {
  const { PERFJUDGE_ORGANIZER_EMAIL: email, PERFJUDGE_ORGANIZER_PASSWORD: password } = env();
  if (!email && !password) return undefined;
  if (!email || !password)
    throw new ConfigError(
      'Set both PERFJUDGE_ORGANIZER_EMAIL and PERFJUDGE_ORGANIZER_PASSWORD, or neither',
    );
  return { email, password };
}

async function main(): Promise<void> {
  const organizer = organizerFromEnv();
  const report = await seed(db(), { organizer });
  for (const c of report.challenges) {
    console.log(`challenge ${c.slug} v${c.version}: ${c.created ? 'created' : 'already there'}`);
    console.log(`  benchmark definition ${describeDefinition(c.benchmark)}`);
    if (c.disagreements.length)
      console.log(
        `  kept (change it in the organizer console): this environment differs: ${c.disagreements.join('; ')}`,
      );
  }
  console.log(
    report.organizer
      ? `organizer: ${report.organizer.created ? 'created' : 'already there'}`
      : 'organizer: skipped (PERFJUDGE_ORGANIZER_EMAIL and PERFJUDGE_ORGANIZER_PASSWORD not set)',
  );
  await db().$disconnect();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
