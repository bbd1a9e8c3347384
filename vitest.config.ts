import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      'server-only': fileURLToPath(new URL('./tests/helpers/server-only-stub.ts', import.meta.url)),
    },
  },
  test: {
    include: [
      'tests/**/*.test.ts',
      'challenges/**/*.test.ts',
      'runner/**/*.test.ts',
      'contracts/**/*.test.ts',
      'lib/**/*.test.ts',
    ],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Integration tests build C++ and run processes; two cores are all we have.
    fileParallelism: true,
    maxWorkers: 2,
    allowOnly: !process.env.CI,
  },
});
