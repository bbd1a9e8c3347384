// A private PostgreSQL schema per test file or benchmark: created, migrated, bound to a client,
// dropped afterwards. Refuses any database that is not on this machine, so a test can never touch a
// shared one.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { env } from '../lib/core/config/env';
import { createDbClient, type Db } from '../lib/server/db/client';
import { applyMigrations } from '../lib/server/db/migrate';

/** This machine's PostgreSQL (trust auth, database `test`) unless DATABASE_URL names another local one. */
const DEFAULT_URL = 'postgresql://postgres@127.0.0.1:5432/test';
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Schemas of test runs that crashed before dropping theirs are removed after this long. */
const STALE_SCHEMA_MS = 6 * 3600_000;

export interface TestDatabase {
  db: Db;
  /** The URL with `?schema=`, for code under test that takes a URL. */
  url: string;
  schema: string;
  drop(): Promise<void>;
}

function testDatabaseUrl(): string {
  const url = new URL(env().DATABASE_URL ?? DEFAULT_URL);
  // A Unix socket (`?host=/run/postgresql`) is local too.
  const socket = url.searchParams.get('host');
  const local = socket ? socket.startsWith('/') : LOCAL_HOSTS.has(url.hostname);
  if (!local)
    throw new Error(
      `Refusing to run database tests against ${url.hostname}: tests create and drop schemas, so DATABASE_URL must point at this machine`,
    );
  url.searchParams.delete('schema');
  return url.toString();
}

async function withAdminClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable (${(error as Error).message}). Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`,
      { cause: error },
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function dropStaleSchemas(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ nspname: string }>(
    `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'test\\_%'`,
  );
  for (const { nspname } of rows) {
    const born = parseInt(nspname.split('_')[1] ?? '', 36);
    if (Number.isFinite(born) && Date.now() - born > STALE_SCHEMA_MS)
      await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const schema = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(dropStaleSchemas);
  const url = new URL(testDatabaseUrl());
  url.searchParams.set('schema', schema);
  await applyMigrations({ connectionString: url.toString() });
  const db = createDbClient(url.toString());
  return {
    db,
    url: url.toString(),
    schema,
    async drop() {
      await db.$disconnect();
      await withAdminClient((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    },
  };
}
