// The one Prisma client of a process: PostgreSQL through the pg driver adapter, built from DATABASE_URL.
import { PrismaPg } from '@prisma/adapter-pg';
import { ConfigError, env } from '../config/env';
import { PrismaClient, type Prisma } from './generated/prisma/client';

export type Db = PrismaClient;
/** The client handed to an interactive transaction's callback. */
export type Tx = Prisma.TransactionClient;

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Splits Prisma's `?schema=` parameter off a URL: the pg driver does not know it. */
export function parseDatabaseUrl(connectionString: string): {
  connectionString: string;
  schema: string | undefined;
} {
  const url = new URL(connectionString);
  const schema = url.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !SCHEMA_NAME.test(schema))
    throw new ConfigError(`DATABASE_URL: schema "${schema}" is not a plain identifier`);
  url.searchParams.delete('schema');
  return { connectionString: url.toString(), schema };
}

/**
 * A client for one database URL. The adapter ignores `?schema=` (prisma/orm#28611), so the schema
 * is given to it explicitly (generated queries) and as the connections' search_path (raw queries).
 */
export function createDbClient(connectionString: string): Db {
  const parsed = parseDatabaseUrl(connectionString);
  const adapter = new PrismaPg(
    {
      connectionString: parsed.connectionString,
      ...(parsed.schema ? { options: `-c search_path=${parsed.schema}` } : {}),
    },
    parsed.schema ? { schema: parsed.schema } : undefined,
  );
  return new PrismaClient({ adapter });
}

// Kept on globalThis so a dev server's hot reloads reuse one pool instead of opening another each time.
const globalForDb = globalThis as typeof globalThis & { perfjudgeDb?: Db };

export function db(): Db {
  if (!globalForDb.perfjudgeDb) {
    const url = env().DATABASE_URL;
    if (!url)
      throw new ConfigError(
        'DATABASE_URL is not set: set it to the PostgreSQL database, e.g. postgresql://postgres@127.0.0.1:5432/perfjudge',
      );
    globalForDb.perfjudgeDb = createDbClient(url);
  }
  return globalForDb.perfjudgeDb;
}
