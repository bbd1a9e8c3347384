// Prisma CLI configuration (Prisma 7): where the schema and migrations live. Only `prisma generate`
// runs here; migrations are applied by lib/server/db/migrate.ts (see prisma/README.md for why).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations', seed: 'tsx prisma/seed.ts' },
  // Not needed to generate the client; migrate commands read it when the schema engine is present.
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
