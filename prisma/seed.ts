// The seed: the wordcount challenge from its manifest and the organizer account from
// PERFJUDGE_ORGANIZER_EMAIL / PERFJUDGE_ORGANIZER_PASSWORD. Idempotent. `npm run db:seed`.
import { pathToFileURL } from 'node:url';
import { loadChallenge } from '../lib/challenge/load-manifest';
import { ConfigError, env } from '../lib/config/env';
import { appendAuditLog } from '../lib/db/append-audit-log';
import { db, type Db } from '../lib/db/client';
import { upsertChallengeVersion } from '../lib/db/upsert-challenge-version';
import { upsertOrganizer } from '../lib/db/upsert-organizer';

export interface SeedOptions {
  organizer?: { email: string; password: string };
  /** Challenge slugs (folders under challenges/). */
  challenges?: string[];
}

export interface SeedReport {
  challenges: { slug: string; version: number; created: boolean }[];
  organizer: { userId: string; created: boolean } | null;
}

export async function seed(database: Db, options: SeedOptions = {}): Promise<SeedReport> {
  const report: SeedReport = { challenges: [], organizer: null };
  for (const slug of options.challenges ?? ['wordcount']) {
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
    report.challenges.push({ slug, version: manifest.version, created });
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
  for (const c of report.challenges)
    console.log(`challenge ${c.slug} v${c.version}: ${c.created ? 'created' : 'already there'}`);
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
