// The contestant's whole path: sign up, download the template, submit a real faster patch from a
// file, watch it being judged live, see it accepted with a speedup, find their row on the leaderboard.
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { newContestant, signUp } from './support/accounts';
import { listTarGz, listZip } from './support/archives';
import { keepScreenshot } from './support/screenshots';
import {
  FAST_PATCH,
  JUDGED_WITHIN_MS,
  submissionIdFrom,
  TARGETS,
  waitForVerdicts,
  watchStages,
} from './support/submissions';

test('a new contestant downloads the template, submits a faster patch and ranks', async ({
  page,
}, testInfo) => {
  const contestant = newContestant('Fast');
  await signUp(page, contestant);

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Challenge' })
    .click();
  await expect(page).toHaveURL(/\/challenges\/wordcount$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Word count' })).toBeVisible();
  await keepScreenshot(page, testInfo, 'challenge-1280');

  // The downloads are real archives holding the file contestants edit.
  const [tarGz] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Template (.tar.gz)' }).click(),
  ]);
  expect(tarGz.suggestedFilename()).toMatch(/\.tar\.gz$/);
  const tarNames = listTarGz(await readFile(await tarGz.path()));
  expect(tarNames.some((name) => /(^|\/)wordcount\.cpp$/.test(name))).toBe(true);
  const [zip] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Template (.zip)' }).click(),
  ]);
  expect(zip.suggestedFilename()).toMatch(/\.zip$/);
  expect(
    listZip(await readFile(await zip.path())).some((n) => /(^|\/)wordcount\.cpp$/.test(n)),
  ).toBe(true);

  // Submit from a file, as a contestant with a `git diff` output would.
  await page.getByRole('link', { name: 'Submit a patch' }).click();
  await expect(page).toHaveURL(/\/challenges\/wordcount\/submit$/);
  await page.getByLabel('Patch file').setInputFiles(FAST_PATCH);
  await expect(page.getByText('Loaded fast-hash-table.patch.')).toBeVisible();
  await page.getByRole('button', { name: 'Check patch' }).click();
  const preview = page.getByTestId('preview');
  await expect(preview.getByRole('cell', { name: 'wordcount.cpp', exact: true })).toBeVisible();
  await keepScreenshot(page, testInfo, 'submit-preview-1280');
  await page.getByRole('button', { name: 'Confirm and submit' }).click();
  await page.waitForURL(/\/submissions\/[^/]+$/);
  const submissionId = submissionIdFrom(page);

  // Live progress: the stage changes while this document stays loaded (no 'load' event after the
  // submission page's own; the page refreshes its server parts in place).
  let loads = 0;
  page.on('load', () => (loads += 1));
  const stages = watchStages(page, 'linux-intel');
  await expect
    .poll(() => stages.seen.some((s) => !['queued', 'starting'].includes(s)), {
      timeout: JUDGED_WITHIN_MS,
    })
    .toBe(true);
  await keepScreenshot(page, testInfo, 'submission-live-1280');

  await waitForVerdicts(page, 'Accepted');
  stages.stop();
  expect(stages.seen.length, `stages seen: ${stages.seen.join(' → ')}`).toBeGreaterThanOrEqual(3);
  expect(stages.seen.at(-1)).toBe('done');
  expect(loads).toBe(0);
  for (const target of TARGETS)
    await expect(page.getByTestId(`speedup-${target}`)).toHaveText(/^\d+(\.\d+)?×/);
  await expect(page.getByTestId('overall-score')).toHaveText(/^\d+(\.\d+)?/);
  await keepScreenshot(page, testInfo, 'submission-accepted-1280');

  // The public leaderboard (regenerated every few seconds) shows the contestant's row.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Leaderboard' })
    .click();
  const row = page.getByRole('row').filter({ hasText: contestant.name });
  await expect(async () => {
    await page.reload();
    await expect(row).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(row.getByRole('cell').first()).toHaveText(/^\d+/);
  await keepScreenshot(page, testInfo, 'leaderboard-1280');
  testInfo.annotations.push({ type: 'submission', description: submissionId });
});
