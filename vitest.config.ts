import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The integration files that run longest, slowest first (the last full CI run's order;
 * docs/CONTRIBUTING.md has the figures).
 */
const SLOWEST_FIRST = [
  'tests/integration/newcomer.test.ts',
  'tests/integration/attacks.test.ts',
  'tests/integration/self-judge.test.ts',
  'tests/integration/web-downloads.test.ts',
  'tests/integration/chaos.test.ts',
  'tests/integration/judging-session.test.ts',
  'tests/integration/windows-judge.test.ts',
  'tests/integration/windows-e2e.test.ts',
  'tests/integration/runner-final-session.test.ts',
];

const INTEGRATION_FILES = [
  'tests/integration/**/*.test.ts',
  'challenges/**/*.test.ts',
  'runner/**/*.test.ts',
  'contracts/**/*.test.ts',
  'lib/**/*.test.ts',
];

/** The integration files that run in a worker of their own (the projects below say why). */
const ISOLATED_FILES = [
  ...SLOWEST_FIRST,
  // vi.mock or vi.stubEnv:
  'tests/integration/final-api.test.ts',
  'tests/integration/sandbox.test.ts',
  'tests/integration/web-health-services.test.ts',
  'tests/integration/web-organizer-status.test.ts',
  'tests/integration/web-organizer.test.ts',
  // Stops and restarts a private Redis on a free port and counts its keys: in a shared worker a
  // client an earlier file left reconnecting could land on that port (a key too many seen in CI).
  'tests/integration/redis-faults.test.ts',
];

/**
 * Longest first, so the two workers end together. Vitest orders by the durations it cached in
 * node_modules/.vite/ (a fresh clone, as in CI, has none) and otherwise by file size, which starts
 * a short file that runs for minutes (chaos.test.ts is 50 lines) near the end while the other
 * worker has nothing left to do. The files not listed keep vitest's order, after these.
 */
class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = SLOWEST_FIRST.indexOf(path.relative(this.ctx.config.root, file.moduleId));
      return at < 0 ? SLOWEST_FIRST.length : at;
    };
    return sorted
      .map((file, at) => ({ file, at, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.at - b.at)
      .map(({ file }) => file);
  }
}

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
    sequence: { sequencer: SlowFirstSequencer },
    // The tiers (docs/CONTRIBUTING.md): `npm test -- --tier unit` runs the first alone.
    projects: [
      // Pure functions on scripted input: seconds, no database, Redis, compiler or sandbox. One
      // process runs many files (no isolation): a fresh worker per file was most of the tier's
      // CPU (82 → 36 CPU s, 71 → 29 s; passes in shuffled file orders too). A unit file that
      // fakes timers, mocks or stubs restores them in its own afterEach.
      {
        extends: true,
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], isolate: false },
      },
      // The real tools: compilers, the sandbox, PostgreSQL, Redis, processes and servers. Most
      // files share one process per worker (no isolation): a fresh worker per file loads the
      // Prisma client, BullMQ and the judge again, about 2.3 CPU s a file (ten database and web
      // files 41.6 → 18.7 CPU s). A shared file changes no process-wide state: no mocks, stubbed
      // environment or fake timers (the module caches it may fill are keyed by what they cache:
      // row ids, manifest times, challenge folders), and closes what it opens in its afterAll.
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION_FILES,
          exclude: ISOLATED_FILES,
          isolate: false,
        },
      },
      // The files that mock modules or stub the environment (env() is read once per process), and
      // the long judging files (minutes each: a fresh worker's start is noise there), each in a
      // fresh worker as before.
      {
        extends: true,
        test: { name: 'integration-isolated', include: ISOLATED_FILES },
      },
    ],
  },
});
