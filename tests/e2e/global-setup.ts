// Brings up the whole platform for the browser tests and returns its teardown: a private PostgreSQL
// schema (refused unless the database is on this machine), migrated and seeded with the wordcount
// challenge and a known organizer; a private BullMQ prefix; the tests' shared production build
// (tests/helpers/web-build.ts) served on a free port; a real scorer and real runners (linux-intel, and windows-amd emulated
// under Wine) in development mode with tiny inputs. Logs: test-results/e2e-logs/.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import { seed } from '../../prisma/seed';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { E2E_VARIABLES, ORGANIZER } from './support/e2e-env';
import { ensureWebBuild, TEST_BUILD_DIR } from '../helpers/web-build';
import { cpuSeconds, LOG_DIR, startService, stopService, type Service } from './support/processes';
import { freePort } from '../../lib/core/net/free-port';

const BIN = path.join(REPO_ROOT, 'bin/perfjudge.mjs');
/** `next start` with client addresses from the connection, as `npm start` runs it. */
const WEB_SERVER = path.join(REPO_ROOT, 'scripts/web-server.mjs');
/**
 * Tiny inputs and few runs (the speedup's interval is wide, which the tests do not look at): a
 * judging takes well under a minute per target here. The runners' default inputs take minutes.
 * cachegrind is the contest's setting (off here, see below), not a runner knob.
 */
const RUNNER_DEV_ARGS = [
  '--dev-mode',
  '--public-size',
  '256KiB',
  '--runs',
  '3',
  '--grace-seconds',
  '5',
];

async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const started = Date.now();
  const config = env();
  const prefix = `e2e-${randomBytes(4).toString('hex')}`;
  const services: Service[] = [];
  let database: TestDatabase | undefined;
  const scratchRoot = path.join(os.tmpdir(), `perfjudge-e2e-${prefix}`);

  async function teardown(): Promise<void> {
    // Where the run's CPU went (the browser tier's budget is shared with the integration tier's):
    // the rest of `npx playwright test`'s is the test runner and Chromium.
    const cpu = services.map((s) => `${s.name} ${cpuSeconds(s)?.toFixed(0) ?? '?'}`);
    if (cpu.length) console.log(`e2e: CPU seconds per service: ${cpu.join(', ')}`);
    // Runners first (they may be mid-judging), then the scorer, then the web app.
    for (const service of [...services].reverse()) await stopService(service, 10_000);
    await deleteKeys(config.REDIS_URL, prefix).catch((error: unknown) =>
      console.error(`e2e teardown: Redis keys ${prefix}:* left: ${(error as Error).message}`),
    );
    await rm(scratchRoot, { recursive: true, force: true });
    await database?.drop();
  }

  try {
    // createTestDatabase refuses a DATABASE_URL that is not on this machine.
    database = await createTestDatabase();
    // The contest's benchmark definition, in the database like every contest's: tiny, development.
    await seed(database.db, { organizer: ORGANIZER, benchmark: () => ({ sizeBytes: 1 << 20 }) });
    // The organizer's setting, as the console writes it: no cachegrind (an -O3 rebuild of the
    // solution and a run of each side under valgrind: 30 and 19 s of two accepted linux-intel
    // judgings of 79 and 62 s, at load 11-24). Only contest-flow.spec.ts looks at its tables: it
    // turns it on in the console and rejudges its submission; every other page says it was not run
    // (its first test checks).
    await database.db.challenge.update({
      where: { slug: 'wordcount' },
      data: { cachegrind: false },
    });
    await database.db.$disconnect();

    // Without DATABASE_URL: the runners never get database credentials, as in production.
    const { DATABASE_URL: _notForRunners, ...inherited } = process.env;
    const common = { ...inherited, REDIS_URL: config.REDIS_URL, PERFJUDGE_QUEUE_PREFIX: prefix };
    // A lock file and a work root per runner rather than the host's: the two targets judge at the
    // same time (the tests check verdicts, not precise timings) and other test runs on this host
    // neither hold us up nor sweep our scratch folders (a runner holding the host lock removes every
    // judging folder in its work root as a dead runner's).
    const hostLock = (target: string) => path.join(LOG_DIR, `host-${prefix}-${target}.lock`);
    const workRoot = (target: string) => path.join(scratchRoot, target);

    // The tests' shared production build (tests/helpers/web-build.ts): scripts/test.sh makes it
    // while the linters run; a build newer than every source is reused.
    const buildSeconds = await ensureWebBuild();

    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    // One at a time, each kept as soon as it is up, so a failure later still stops it.
    services.push(
      await startService({
        name: 'web',
        command: process.execPath,
        args: [WEB_SERVER, '--port', String(port), '--hostname', '127.0.0.1'],
        env: {
          ...common,
          NODE_ENV: 'production',
          NEXT_TELEMETRY_DISABLED: '1',
          PERFJUDGE_NEXT_DIST_DIR: TEST_BUILD_DIR,
          DATABASE_URL: database.url,
          PERFJUDGE_PUBLIC_URL: baseUrl,
          PERFJUDGE_AUTH_SECRET: randomBytes(32).toString('base64url'),
          // Every browser test signs up from 127.0.0.1, like a classroom behind one NAT.
          PERFJUDGE_SIGNUPS_PER_ADDRESS_PER_DAY: '1000',
          // Every browser of every test signs in from 127.0.0.1, most without a device cookie.
          PERFJUDGE_SIGN_INS_PER_ADDRESS_PER_MINUTE: '1000',
        },
        ready: /Ready in|started server|Local:/i,
        timeoutMs: 60_000,
      }),
    );
    services.push(
      await startService({
        name: 'scorer',
        command: process.execPath,
        args: [BIN, 'scorer'],
        env: { ...common, DATABASE_URL: database.url },
        ready: /scorer ready/,
        timeoutMs: 60_000,
      }),
    );
    services.push(
      await startService({
        name: 'runner-linux-intel',
        command: process.execPath,
        args: [
          BIN,
          'runner',
          '--target',
          'linux-intel',
          '--host-lock',
          hostLock('linux-intel'),
          '--work-root',
          workRoot('linux-intel'),
          ...RUNNER_DEV_ARGS,
        ],
        env: common,
        ready: /serving judge-linux-intel/,
        timeoutMs: 60_000,
      }),
    );
    // Every wordcount submission is judged on windows-amd too (its score waits for both): emulated
    // here with MinGW-w64 and Wine, which scripts/install-system-deps.sh installs.
    services.push(
      await startService({
        name: 'runner-windows-amd',
        command: process.execPath,
        args: [
          BIN,
          'runner',
          '--target',
          'windows-amd',
          '--host-lock',
          hostLock('windows-amd'),
          '--work-root',
          workRoot('windows-amd'),
          ...RUNNER_DEV_ARGS,
          // The start-up host report is 7 baseline runs under Wine and a noise probe, in the tier's
          // CPU budget; contest-flow.spec.ts reads one runner's in the console: linux-intel's.
          '--no-host-report',
        ],
        env: common,
        ready: /serving judge-windows-amd/,
        // A fresh clone's first start makes the Wine prefix (10-30 s alone, minutes on a loaded host).
        timeoutMs: 240_000,
      }),
    );

    // The tests' workers start after this and inherit these (tests/e2e/support/e2e-env.ts).
    process.env[E2E_VARIABLES.baseUrl] = baseUrl;
    process.env[E2E_VARIABLES.databaseUrl] = database.url;
    console.log(
      `e2e: ${baseUrl}, schema ${database.schema}, queue prefix ${prefix}; next build ${buildSeconds ? `${buildSeconds.toFixed(0)} s` : 'reused'}, ` +
        `setup ${((Date.now() - started) / 1000).toFixed(0)} s; logs in ${path.relative(REPO_ROOT, LOG_DIR)}/`,
    );
    return teardown;
  } catch (error) {
    await teardown();
    throw error;
  }
}
