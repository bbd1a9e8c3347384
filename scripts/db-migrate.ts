// `npm run db:migrate`: applies prisma/migrations to DATABASE_URL (lib/server/db/migrate.ts says why not
// `prisma migrate deploy`).
import { env } from '../lib/core/config/env';
import { applyMigrations } from '../lib/server/db/migrate';

try {
  const url = env().DATABASE_URL;
  if (!url)
    throw new Error('DATABASE_URL is not set: set it to the PostgreSQL database to migrate');
  const applied = await applyMigrations({ connectionString: url });
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
