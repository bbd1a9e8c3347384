// The one production build of the web app that the tests serve (`next build` into .next-test/):
// the browser tests' global setup and the integration tests that need a real production server
// (web-client-address) share it, and scripts/test.sh makes it while the linters run, so a test run
// builds the app once instead of once per suite. A build newer than every source is reused; run
// this file (`npx tsx tests/helpers/web-build.ts`) to make one ahead of the tests.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../../lib/core/config/env';
import { webBuildIsCurrent } from '../../scripts/start/web';

/** Its own folder, so a developer's `next dev` (.next/) or `npm start` build is left alone. */
export const TEST_BUILD_DIR = '.next-test';
const NEXT_BIN = path.join(REPO_ROOT, 'node_modules/next/dist/bin/next');

/**
 * Whether .next-test/ holds a build newer than every source: `npm start`'s own reuse rule (what
 * `next build` compiles is listed once, in scripts/start/web.ts; the challenges' code is imported
 * at run time, not built in).
 */
export function webBuildIsFresh(): boolean {
  return webBuildIsCurrent(REPO_ROOT, TEST_BUILD_DIR);
}

/**
 * Builds the app into .next-test/ unless that build is fresh; the seconds it took (0: reused).
 * Two test runs building at once would share the folder: scripts/test.sh builds before either.
 */
export async function ensureWebBuild(timeoutMs = 15 * 60_000): Promise<number> {
  if (webBuildIsFresh()) return 0;
  const started = Date.now();
  const child = spawn(process.execPath, [NEXT_BIN, 'build'], {
    cwd: REPO_ROOT,
    // Production, as `npm start` builds it (vitest's NODE_ENV=test would make Next warn and differ).
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PERFJUDGE_NEXT_DIST_DIR: TEST_BUILD_DIR,
      NEXT_TELEMETRY_DISABLED: '1',
      PERFJUDGE_NEXT_BUILD_CACHE: 'off', // next.config.ts says why
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const why = timedOut ? `not done within ${timeoutMs / 1000} s` : `${signal ?? code}`;
      if (code === 0) resolve();
      else reject(new Error(`next build failed (${why}):\n${output.slice(-6000)}`));
    });
  });
  return (Date.now() - started) / 1000;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  ensureWebBuild().then(
    (seconds) =>
      console.log(
        seconds === 0
          ? `web app: ${TEST_BUILD_DIR}/ is up to date`
          : `web app: built into ${TEST_BUILD_DIR}/ in ${seconds.toFixed(0)} s`,
      ),
    (error: unknown) => {
      console.error((error as Error).message);
      process.exitCode = 1;
    },
  );
