// A live contest in a real browser against the real app: a score recorded
// while a visitor reloads the leaderboard shows within 5 s, and the page names no user id; the
// signed-in contestant's own row highlighted; a submission's live states (queued with
// its place, waiting for the host, one target's verdict and speedup the moment it is recorded while
// the other still waits); a mixed outcome's header naming the failing target; the comparison with
// the contestant's previous submission; and published solutions reachable from the leaderboard and
// the challenge page after an organizer confirmed publishing while the contest is open.
// Judging results are written with the scorer's own recordJudgingResult (recorded fixtures), so the
// states are reached in seconds rather than judged for minutes; the pages read them as they would
// read a runner's. Screenshots at 1280 and 375 px of each page are kept as test artifacts.
import { readFileSync } from 'node:fs';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { judgingResultSchema, type JudgingResult } from '../../contracts';
import { createDbClient, type Db } from '../../lib/server/db/client';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { makeResult, makeUser } from '../../dev/db-fixtures';
import { newContestant, signInAsOrganizer, signUp } from './support/accounts';
import { e2eDatabaseUrl } from './support/e2e-env';
import { keepScreenshot } from './support/screenshots';

test.describe.configure({ mode: 'serial' });

let db: Db;
let version: number;

test.beforeAll(async () => {
  db = createDbClient(e2eDatabaseUrl());
  const latest = await db.challengeVersion.findFirstOrThrow({
    where: { challenge: { slug: 'wordcount' } },
    orderBy: { version: 'desc' },
    select: { version: true },
  });
  version = latest.version;
});

test.afterAll(async () => {
  // Other specs expect private patches: publication never outlives this file.
  await db.challenge.update({ where: { slug: 'wordcount' }, data: { solutionsPublishedAt: null } });
  await db.$disconnect();
});

/** Both widths, the page as a phone shows it included. */
async function screenshots(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await keepScreenshot(page, testInfo, `${name}-1280`);
  await page.setViewportSize({ width: 375, height: 800 });
  await keepScreenshot(page, testInfo, `${name}-375`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

function fixture(name: string, target: 'linux-intel' | 'windows-amd'): JudgingResult {
  const url = new URL(`../fixtures/web-submission/${name}.json`, import.meta.url);
  const result = judgingResultSchema.parse(JSON.parse(readFileSync(url, 'utf8')));
  return {
    ...result,
    target,
    challenge: { ...result.challenge, version },
    host: { ...result.host, emulated: target === 'windows-amd', devMode: true },
  };
}

/** A submission in the database only: no queue job, so no runner takes it. */
async function submission(userId: string) {
  const created = await createSubmission(db, {
    userId,
    challengeSlug: 'wordcount',
    patchText: 'diff --git a/src/wordcount.cpp b/src/wordcount.cpp\n',
  });
  const by = Object.fromEntries(created.judgings.map((j) => [j.target, j]));
  return { id: created.submissionId, linux: by['linux-intel']!, windows: by['windows-amd']! };
}

async function record(judging: { judgingId: string; round: number }, result: JudgingResult) {
  await recordJudgingResult(db, {
    ...judging,
    result: { ...result, judgingId: judging.judgingId },
  });
}

async function accepted(userId: string, speedup: number) {
  const s = await submission(userId);
  for (const target of ['linux-intel', 'windows-amd'] as const)
    await record(s[target === 'linux-intel' ? 'linux' : 'windows'], {
      ...makeResult({ slug: 'wordcount', version, target, speedup, pairs: 6 }),
    });
  return s;
}

test('a score recorded while a visitor reloads the leaderboard shows within 5 s', async ({
  page,
}, testInfo) => {
  await page.goto('/challenges/wordcount/leaderboard');
  await expect(page.getByTestId('leaderboard-as-of')).toBeVisible();
  const name = `Fresh ${Date.now().toString(36)}`;
  const userId = await makeUser(db, name);
  await accepted(userId, 41.5);
  const written = Date.now();
  // The visitor reloads about twice a second, as someone waiting for their row would.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole('row').filter({ hasText: name })).toHaveCount(1, {
      timeout: 500,
    });
  }).toPass({ timeout: 15_000, intervals: [250] });
  const shownAfter = Date.now() - written;
  testInfo.annotations.push({ type: 'freshness', description: `${shownAfter} ms` });
  expect(shownAfter).toBeLessThanOrEqual(5_000);
  // A public page: rows are marked by an opaque key, never by the internal user id (its own
  // HTML, and the RSC payload in it, which also carries React's keys).
  const html = await (await page.request.get('/challenges/wordcount/leaderboard')).text();
  expect(html).toContain(name);
  expect(html).not.toContain(userId);
  // The baseline's time per target heads its column.
  await expect(page.getByTestId('baseline-linux-intel')).toContainText('baseline');
  await screenshots(page, testInfo, 'leaderboard');
});

test('live states: queued with its place, waiting for the host, a mixed outcome, a comparison', async ({
  page,
}, testInfo) => {
  const author = newContestant('Live');
  await signUp(page, author);
  const user = await db.user.findFirstOrThrow({ where: { email: author.email } });
  const previous = await accepted(user.id, 1.5);
  const s = await submission(user.id);

  // The signed-in contestant's own row is highlighted on the (shared, cached) leaderboard.
  await expect(async () => {
    await page.goto('/challenges/wordcount/leaderboard');
    await expect(page.locator('tr[aria-current="true"]')).toContainText(author.name, {
      timeout: 1_000,
    });
  }).toPass({ timeout: 15_000, intervals: [500] });
  await expect(page.locator('tr[aria-current="true"]')).toHaveCount(1);

  await page.goto(`/submissions/${s.id}`);
  await expect(page.getByTestId('progress-linux-intel')).toContainText(
    /Queued: (next in line|\d+ ahead)/,
  );
  await screenshots(page, testInfo, 'submission-queued');

  // Windows is taken by a runner that waits for the host lock: not "judging".
  await db.judging.update({
    where: { id: s.windows.judgingId },
    data: { status: 'WAITING', startedAt: new Date() },
  });
  await expect(page.getByTestId('progress-windows-amd')).toContainText('Waiting for the host', {
    timeout: 15_000,
  });

  // Linux finishes first: its verdict and speedup show at once, while windows still waits.
  await record(s.linux, fixture('accepted-linux-intel', 'linux-intel'));
  await expect(page.getByTestId('live-speedup-linux-intel')).toContainText('×', {
    timeout: 15_000,
  });
  await expect(page.getByTestId('verdict-linux-intel')).toContainText('Accepted');
  await expect(page.getByTestId('progress-windows-amd')).toContainText('Waiting for the host');
  await screenshots(page, testInfo, 'submission-one-target-done');

  // Windows fails to build: the header says which target failed and why, first.
  await record(s.windows, fixture('build-error-linux-intel', 'windows-amd'));
  await expect(page.getByTestId('mixed-outcome')).toContainText('Build error on windows-amd', {
    timeout: 15_000,
  });
  await expect(page.getByTestId('mixed-outcome')).toContainText('accepted on linux-intel');
  await page.reload();
  await expect(page.getByTestId('first-compiler-error')).toContainText('error');
  await screenshots(page, testInfo, 'submission-mixed');

  // Compared with the previous (accepted) submission: speedups side by side with the change.
  await page.getByLabel('Compare with', { exact: true }).selectOption(previous.id);
  await page.getByRole('button', { name: 'Compare' }).click();
  await expect(page).toHaveURL(new RegExp(`compare=${previous.id}`));
  const table = page.getByTestId('compare-linux-intel');
  await expect(table.getByRole('row').filter({ hasText: 'speedup' })).toContainText('1.50×');
  await page.getByTestId('compare').scrollIntoViewIfNeeded();
  await screenshots(page, testInfo, 'submission-compare');
});

test('published solutions are linked from the leaderboard and the challenge page', async ({
  page,
}, testInfo) => {
  const userId = await makeUser(db, `Published ${Date.now().toString(36)}`);
  const s = await accepted(userId, 7.25);

  await signInAsOrganizer(page);
  await page.goto('/organizer/challenges/wordcount/settings');
  await page.getByRole('button', { name: 'Publish solutions' }).click();
  const dialog = page.getByRole('dialog', { name: 'Publish solutions' });
  await expect(dialog).toContainText('The contest is still open');
  // Publishing while open needs an explicit "do it anyway" before Confirm does anything.
  await expect(dialog.getByRole('button', { name: 'Confirm' })).toBeDisabled();
  await dialog.getByLabel('Reason').fill('e2e: results post');
  await dialog.getByLabel('Do it anyway').check();
  await screenshots(page, testInfo, 'organizer-publish-dialog');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toContainText('Solutions published', { timeout: 15_000 });

  await page.goto('/challenges/wordcount');
  await page.getByTestId('solutions-link').click();
  await expect(page).toHaveURL(/\/challenges\/wordcount\/solutions$/);
  await expect(page.getByTestId('solutions').getByRole('link').first()).toBeVisible();
  await screenshots(page, testInfo, 'solutions');

  await expect(async () => {
    await page.goto('/challenges/wordcount/leaderboard');
    await expect(page.locator(`a[href="/submissions/${s.id}"]`)).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 15_000, intervals: [500] });
  await page.locator(`a[href="/submissions/${s.id}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/submissions/${s.id}$`));
  await expect(page.getByTestId('outcome-linux-intel')).toContainText('Accepted');
});
