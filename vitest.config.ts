import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      'server-only': fileURLToPath(new URL('./tests/helpers/server-only-stub.ts', import.meta.url)),
    },
  },
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Integration tests build C++ and run processes; two cores are all we have.
    fileParallelism: true,
    maxWorkers: 2,
    allowOnly: !process.env.CI,
    // The tiers (docs/CONTRIBUTING.md): `npm test -- --tier unit` runs the first alone.
    projects: [
      // Pure functions on scripted input: seconds, no database, Redis, compiler or sandbox.
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      // The real tools: compilers, the sandbox, PostgreSQL, Redis, processes and servers.
      {
        extends: true,
        test: {
          name: 'integration',
          include: [
            'tests/integration/**/*.test.ts',
            'challenges/**/*.test.ts',
            'runner/**/*.test.ts',
            'contracts/**/*.test.ts',
            'lib/**/*.test.ts',
          ],
        },
      },
    ],
  },
});
