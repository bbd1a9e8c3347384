// The seed and the migrations against the real PostgreSQL: both can run again without changing
// anything, a changed manifest needs a new version, a changed migration is refused.
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { challengeCode } from '../../lib/core/challenge/challenge-code';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { verifyPassword } from '../../lib/core/access/password';
import { ConflictError } from '../../lib/server/db/errors';
import { applyMigrations, MIGRATIONS_DIR } from '../../lib/server/db/migrate';
import { upsertChallengeVersion } from '../../lib/server/db/contest/upsert-challenge-version';
import { seed } from '../../prisma/seed';
import { createTestDatabase, type TestDatabase } from '../../dev/database';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const organizer = { email: 'Org@Example.test', password: 'correct horse battery' };

async function counts() {
  return {
    challenges: await t.db.challenge.count(),
    versions: await t.db.challengeVersion.count(),
    targets: await t.db.target.count(),
    users: await t.db.user.count(),
    audit: await t.db.auditLog.count(),
  };
}

/** The scrypt hash of the user's e-mail + password sign-in ('' when there is none). */
async function passwordHashOf(userId: string): Promise<string> {
  const account = await t.db.account.findFirst({
    where: { userId, providerId: 'credential' },
    select: { password: true },
  });
  return account?.password ?? '';
}

describe('seed', () => {
  it('creates the wordcount challenge and the organizer, and changes nothing the second time', async () => {
    const { manifest } = await loadChallenge('wordcount');
    const first = await seed(t.db, {
      organizer,
      benchmark: () => ({ sizeBytes: 8 << 20, seed: 'the-first-start-seed' }),
    });
    // The benchmark definition is written once, with the first writer's wishes.
    const definition = {
      sizeBytes: 8 << 20,
      seed: 'the-first-start-seed',
      development: true,
      generatorVersion: (await challengeCode('wordcount')).generatorVersion,
      revision: 1,
    };
    expect(first.challenges).toEqual([
      {
        slug: 'wordcount',
        version: manifest.version,
        created: true,
        benchmark: definition,
        disagreements: [],
      },
    ]);
    expect(first.organizer?.created).toBe(true);
    const after = await counts();
    expect(after).toEqual({ challenges: 1, versions: 1, targets: 2, users: 1, audit: 3 });
    const user = await t.db.user.findUniqueOrThrow({ where: { email: 'org@example.test' } });
    expect(user.role).toBe('ORGANIZER');
    const hash = await passwordHashOf(user.id);
    expect(await verifyPassword(organizer.password, hash)).toBe(true);
    const version = await t.db.challengeVersion.findFirstOrThrow({ include: { targets: true } });
    expect(version.scoringFormula).toBe('SUM');
    expect(version.targets.map((x) => x.name).sort()).toEqual(['linux-intel', 'windows-amd']);
    expect((version.manifest as { slug: string }).slug).toBe('wordcount');

    // A later writer with other wishes (the manifest's size) is told, and changes nothing.
    const second = await seed(t.db, { organizer, benchmark: ({ size }) => ({ sizeBytes: size }) });
    expect(second.challenges[0]).toMatchObject({ created: false, benchmark: definition });
    expect(second.challenges[0]?.disagreements).toEqual([
      'input size 256MiB here, 8MiB in the database',
    ]);
    expect(second.organizer).toEqual({ userId: user.id, created: false });
    expect(await counts()).toEqual(after);
    expect(await passwordHashOf(user.id)).toBe(hash);
  });

  it('takes a new organizer password from the environment', async () => {
    await seed(t.db, { organizer: { ...organizer, password: 'a brand new passphrase' } });
    const user = await t.db.user.findUniqueOrThrow({ where: { email: 'org@example.test' } });
    const hash = await passwordHashOf(user.id);
    expect(await verifyPassword('a brand new passphrase', hash)).toBe(true);
    expect(await verifyPassword(organizer.password, hash)).toBe(false);
  });

  it('refuses a changed manifest under a version that is already registered', async () => {
    const { manifest } = await loadChallenge('wordcount');
    await expect(
      upsertChallengeVersion(t.db, { ...manifest, limits: { ...manifest.limits, processes: 1 } }),
    ).rejects.toBeInstanceOf(ConflictError);
    const next = await upsertChallengeVersion(t.db, { ...manifest, version: manifest.version + 1 });
    expect(next.created).toBe(true);
  });
});

describe('applyMigrations', () => {
  it('applies nothing twice and refuses a migration edited after it was applied', async () => {
    expect(await applyMigrations({ connectionString: t.url })).toEqual([]);
    const rows = await t.db.$queryRaw<{ migration_name: string; checksum: string }[]>`
      SELECT migration_name, checksum FROM "_prisma_migrations"`;
    const folders = (await readdir(MIGRATIONS_DIR, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(folders[0]).toBe('20261130000000_init');
    expect(rows.map((r) => r.migration_name).sort()).toEqual(folders);

    const dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-migrations-'));
    try {
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      await writeFile(
        path.join(dir, '20261130000000_init', 'migration.sql'),
        '-- edited\nSELECT 1;\n',
      );
      await expect(
        applyMigrations({ connectionString: t.url, migrationsDir: dir }),
      ).rejects.toThrow(/edited after it was applied/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
