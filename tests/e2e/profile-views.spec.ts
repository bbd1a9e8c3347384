// Where the time goes, through the whole platform: a real faster patch judged by the real runners
// shows, on linux-intel, flame graphs of both sides (perf record, sampled from outside the sandbox)
// and cachegrind's per-function tables; on windows-amd (emulated) the page says the sampled profile
// is unavailable there. The speedscope download parses with speedscope's file format, and another
// contestant cannot fetch it (names and stacks are the author's code). Screenshots at 1280 and 375 px;
// at 375 px the page does not scroll sideways. The browser tests' contest leaves cachegrind out (the
// global setup): the organizer turns it on in the console first, as an organizer would.
import { expect, test, type Browser } from '@playwright/test';
import { createDbClient } from '../../lib/server/db/client';
import { speedscopeSchema } from '../helpers/speedscope-schema';
import { newContestant, signInAsOrganizer, signUp } from './support/accounts';
import { e2eDatabaseUrl } from './support/e2e-env';
import { keepScreenshot } from './support/screenshots';
import {
  FAST_PATCH,
  JUDGED_WITHIN_MS,
  submitByPasting,
  waitForVerdictsByReloading,
} from './support/submissions';

/** The innermost elements whose right edge is past the screen's (a string: no DOM types here). */
const WIDEST_ELEMENTS = `[...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
  .filter((e) => ![...e.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 1))
  .filter((e) => !e.closest('.table-wrap'))
  .slice(0, 8)
  .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ': ' + (e.textContent || '').slice(0, 60))`;

test.afterAll(async () => {
  // The other specs' contest runs without cachegrind (the global setup): leave it so.
  const db = createDbClient(e2eDatabaseUrl());
  try {
    await db.challenge.update({ where: { slug: 'wordcount' }, data: { cachegrind: false } });
  } finally {
    await db.$disconnect();
  }
});

/** The organizer turns the contest's cachegrind on in the console: new submissions have it. */
async function turnOnCachegrind(browser: Browser): Promise<void> {
  const organizer = await browser.newContext();
  try {
    const page = await organizer.newPage();
    await signInAsOrganizer(page);
    await page.goto('/organizer/challenges/wordcount/settings');
    const cachegrind = page.getByRole('checkbox', { name: /Count instructions with cachegrind/ });
    await expect(cachegrind).not.toBeChecked();
    await cachegrind.check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByRole('status')).toContainText('Saved the cachegrind profile', {
      timeout: 15_000,
    });
  } finally {
    await organizer.close();
  }
}

test('a judged patch shows hotspots and flame graphs for baseline and solution', async ({
  page,
  browser,
}, testInfo) => {
  test.setTimeout(JUDGED_WITHIN_MS + 120_000);
  await turnOnCachegrind(browser);
  await signUp(page, newContestant('Profiled'));
  const submissionId = await submitByPasting(page, FAST_PATCH);
  await waitForVerdictsByReloading(page, 'Accepted');

  const linux = page.getByTestId('target-linux-intel');
  await expect(linux.getByTestId('flame-graph')).toHaveCount(2);
  await expect(linux.getByRole('img', { name: /Flame graph of the solution/ })).toBeVisible();
  // Boxes name the functions: the baseline's stacks reach the driver's main; the solution's may be
  // cut above its wordcount (its 64 KiB stack buffer is beyond what DWARF unwinding copies).
  const graph = (side: string) =>
    linux.getByRole('img', { name: `Flame graph of the ${side} on linux-intel` });
  await expect(graph('baseline').getByText('main', { exact: true })).toHaveCount(1);
  await expect(
    graph('solution')
      .getByText(/^wordcount\b/)
      .first(),
  ).toBeVisible();
  const compare = linux.getByTestId('hotspots-compare');
  await expect(compare.getByRole('row')).not.toHaveCount(1);
  await expect(
    linux.getByText(/inlined counts toward the function it was inlined into/),
  ).toBeVisible();
  // Both sides' own tables are there (inside their folds).
  await expect(linux.getByTestId('hotspots-baseline')).toHaveCount(1);
  await expect(linux.getByTestId('hotspots-solution')).toHaveCount(1);

  const windows = page.getByTestId('target-windows-amd');
  await expect(windows.getByTestId('sampled-unavailable')).toContainText(
    'unavailable on this target',
  );
  await expect(windows.getByTestId('flame-graph')).toHaveCount(0);
  // The other Linux-only parts point to that note rather than saying only "none was taken".
  for (const part of ['memory-unavailable', 'cachegrind-unavailable'])
    await expect(windows.getByTestId(part)).toHaveText('Unavailable: see the note above.');

  // The download: speedscope's file format, both sides.
  const href = await linux.getByTestId('speedscope-download').getAttribute('href');
  expect(href).toBe(`/submissions/${submissionId}/profile/linux-intel`);
  const response = await page.request.get(href!);
  expect(response.status()).toBe(200);
  expect(response.headers()['content-disposition']).toMatch(/\.speedscope\.json"$/);
  const file = speedscopeSchema.parse(await response.json());
  expect(file.profiles.map((p) => p.name.split(' ')[0])).toEqual(['baseline', 'solution']);
  expect(file.shared.frames.map((f) => f.name)).toContain('main');

  await keepScreenshot(page, testInfo, 'submission-profile-1280');
  await page.setViewportSize({ width: 375, height: 800 });
  await page.reload();
  await expect(linux.getByTestId('flame-graph').first()).toBeVisible();
  // The new views fit: their right edges are on the screen (wide tables scroll in their own box).
  for (const box of [
    ...(await linux.getByTestId('flame-graph').all()),
    linux.getByTestId('hotspots-compare').locator('xpath=..'),
  ])
    expect((await box.boundingBox())!.x + (await box.boundingBox())!.width).toBeLessThanOrEqual(
      375,
    );
  // And so does the whole page: no horizontal scroll (its details list once made it 434 px wide).
  const wide = await page.evaluate<string[]>(WIDEST_ELEMENTS);
  expect(
    await page.evaluate<number>('document.scrollingElement.scrollWidth'),
    `wider than the screen: ${wide.join(' | ')}`,
  ).toBeLessThanOrEqual(375);
  await linux.getByText(/Solution’s top functions/).click();
  await keepScreenshot(page, testInfo, 'submission-profile-375');

  // Someone else: the same 404 as for the patch.
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    await signUp(otherPage, newContestant('Curious'));
    const denied = await otherPage.request.get(href!);
    expect(denied.status()).toBe(404);
  } finally {
    await other.close();
  }
});
