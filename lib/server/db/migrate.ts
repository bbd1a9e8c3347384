// Applies prisma/migrations to a database, keeping Prisma's own bookkeeping table, so that
// `prisma migrate deploy` and `prisma migrate status` agree with it where Prisma's schema engine runs.
// Why not `prisma migrate deploy` itself: that engine is a native binary the CLI downloads on first
// use, which fails on machines without internet (prisma/README.md).
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from '../../core/config/env';
import { parseDatabaseUrl } from './client';

export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma', 'migrations');

// Prisma migrate's table, column for column.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

// Prisma migrate's advisory lock key: this and `prisma migrate` never run at the same time.
const MIGRATE_LOCK_KEY = 72707369;

export interface ApplyMigrationsOptions {
  /** A PostgreSQL URL; its `?schema=` is created when missing and migrated. */
  connectionString: string;
  migrationsDir?: string;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

async function readMigrations(migrationsDir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Applies every migration not yet applied, each in its own transaction; returns their names. */
export async function applyMigrations(options: ApplyMigrationsOptions): Promise<string[]> {
  const { connectionString, schema } = parseDatabaseUrl(options.connectionString);
  const migrations = await readMigrations(options.migrationsDir);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK_KEY]);
    if (schema) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await client.query(`SET search_path TO "${schema}"`);
    }
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
    }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((r) => [r.migration_name, r]));
    const applied: string[] = [];
    for (const migration of migrations) {
      const row = done.get(migration.name);
      if (row && !row.finished_at)
        throw new Error(
          `Migration ${migration.name} failed earlier and is marked unfinished: fix the database, then mark it rolled back (rolled_back_at) or applied`,
        );
      if (row) {
        if (row.checksum !== migration.checksum)
          throw new Error(
            `Migration ${migration.name} was edited after it was applied: add a new migration instead`,
          );
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      applied.push(migration.name);
    }
    return applied;
  } finally {
    await client.end();
  }
}
