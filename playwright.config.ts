// Browser tests (tests/e2e): Debian's Chromium drives the real web app, started by the global setup
// with a real scorer and runners on a private schema and queue prefix. `npm run test:e2e`.
import { existsSync } from 'node:fs';
import { defineConfig, devices } from '@playwright/test';

/**
 * Debian's Chromium: Playwright's own browser download cannot work on these machines. Its old
 * headless shell (package chromium-headless-shell, scripts/install-system-deps.sh) when installed:
 * the same Blink without the full browser that `chromium --headless` starts. Over 13 judging-free
 * tests (accounts, final-pages, live-contest, mobile-pages) its processes took 19.1 and 18.8 CPU
 * seconds where the full browser's took 33.7 and 36.0 (sampled from /proc; A/B/A/B, load 6-12), the
 * run 53 s instead of 71 and 77; the screenshots look the same. The full browser otherwise.
 */
const CHROMIUM = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((file) =>
  existsSync(file),
);

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '*.spec.ts',
  outputDir: 'test-results',
  globalSetup: './tests/e2e/global-setup.ts',
  forbidOnly: !!process.env.CI,
  // One browser at a time: the app, the scorer and the runners already share two cores.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  // A judging with the tiny inputs takes about a minute per target; a flow waits for several.
  timeout: 6 * 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['list']],
  use: {
    // Set by the global setup (it picks the port); the workers load this file after it ran.
    baseURL: process.env.PERFJUDGE_E2E_BASE_URL,
    // No trace: recording one costs every test, passing or not, what the tier shares with the
    // integration tier (the screencast kept Chromium's GPU process busy; the DOM snapshot of every
    // action about doubled the CPU of a page that is read and reloaded). A failure still leaves
    // its screenshot and page snapshot; to trace it, run the test again with
    // `npx playwright test <file> --trace retain-on-failure`.
    trace: 'off',
    screenshot: 'only-on-failure',
    viewport: { width: 1280, height: 800 },
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1280, height: 800 },
        launchOptions: {
          executablePath: CHROMIUM,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
            '--disable-quic',
          ],
        },
      },
    },
  ],
});
