// The final evaluation end to end, in a real browser against the real platform: two contestants
// with accepted submissions, one of whom chooses a submission that is not their best on My
// submissions; the organizer is refused before the deadline, closes the contest,
// starts the final evaluation in the console with the fewest rounds on the setup's small input,
// follows it to DONE on the real runners and scorer, and publishes; a visitor sees the final
// leaderboard with places, the method and the error rate, and downloads the CSV.
// The finalists' submissions are real patches whose provisional results are recorded with the
// scorer's own recordJudgingResult (recorded figures, as live-contest.spec.ts does): submitting
// and being judged through the runners is contest-flow.spec.ts's, so the provisional part takes no
// judging here, and the final session builds and times every patch for real.
import { expect, test, type Locator, type Page, type TestInfo } from '@playwright/test';
import { DEFAULT_FINAL_ERROR_RATE, MIN_FINAL_ROUNDS } from '../../contracts/final';
import { roundsToSeparateFinalists } from '../../lib/core/ranking/places';
import { createDbClient, type Db } from '../../lib/server/db/client';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { makeResult, makeUser } from '../../dev/db-fixtures';
import { newContestant, signInAsOrganizer, signUp, type Contestant } from './support/accounts';
import { e2eDatabaseUrl } from './support/e2e-env';
import { keepScreenshot } from './support/screenshots';
import { FAST_PATCH, readPatch, SUBMISSIONS_DIR, TARGETS } from './support/submissions';

test.describe.configure({ mode: 'serial' });

const SLUG = 'wordcount';
/** A copy of the baseline: accepted, about as fast as it. */
const BASELINE_COPY = `${SUBMISSIONS_DIR}/accepted/baseline-copy.patch`;
/**
 * Building every finalist and the baseline once per target, then MIN_FINAL_ROUNDS rounds of each on
 * the small input, on two shared cores (windows-amd under Wine): minutes, not seconds.
 */
const FINAL_DONE_WITHIN_MS = 12 * 60_000;

let db: Db;
let version: number;
/** What the first test leaves for the others. */
let cast:
  | {
      chooser: Contestant;
      other: Contestant;
      chosenId: string;
      bestId: string;
      otherId: string;
    }
  | undefined;

test.beforeAll(async () => {
  db = createDbClient(e2eDatabaseUrl());
  const latest = await db.challengeVersion.findFirstOrThrow({
    where: { challenge: { slug: SLUG } },
    orderBy: { version: 'desc' },
    select: { version: true },
  });
  version = latest.version;
});

test.afterAll(async () => {
  // The other specs submit to an open contest without a final result: leave it so.
  await db.finalEvaluation.deleteMany({ where: { challenge: { slug: SLUG } } });
  await db.finalSelection.deleteMany({ where: { challenge: { slug: SLUG } } });
  await db.challenge.update({ where: { slug: SLUG }, data: { closedAt: null } });
  await db.$disconnect();
});

/** Both widths, as a phone shows the page too. */
/** A finalist's row of a ranking table, by the name in its name cell (a tie reason names others). */
function finalistRow(table: Locator, name: string): Locator {
  return table
    .getByRole('row')
    .filter({ has: table.page().getByTestId('finalist-name').getByText(name, { exact: true }) });
}

async function screenshots(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await keepScreenshot(page, testInfo, `${name}-1280`);
  await page.setViewportSize({ width: 375, height: 800 });
  await keepScreenshot(page, testInfo, `${name}-375`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** A real patch with its provisional results recorded as accepted at `speedup` on every target. */
async function acceptedInDatabase(userId: string, patchFile: string, speedup: number) {
  const created = await createSubmission(db, {
    userId,
    challengeSlug: SLUG,
    patchText: readPatch(patchFile),
  });
  for (const j of created.judgings) {
    const result = makeResult({
      slug: SLUG,
      version,
      target: j.target as (typeof TARGETS)[number],
      speedup,
      pairs: 6,
    });
    await recordJudgingResult(db, {
      judgingId: j.judgingId,
      round: j.round,
      result: { ...result, judgingId: j.judgingId },
    });
  }
  return created.submissionId;
}

test('two contestants have accepted submissions; one counts a submission that is not their best', async ({
  page: chooserPage,
}, testInfo) => {
  const other = newContestant('Finalist');
  const chooser = newContestant('Chooser');
  // The other finalist never signs in: an account and an accepted submission are all the final needs.
  const otherId = await acceptedInDatabase(await makeUser(db, other.name), FAST_PATCH, 2.5);

  // The chooser's two submissions, the faster one their best.
  await signUp(chooserPage, chooser);
  const chooserUser = await db.user.findFirstOrThrow({ where: { email: chooser.email } });
  const bestId = await acceptedInDatabase(chooserUser.id, FAST_PATCH, 3.1);
  const chosenId = await acceptedInDatabase(chooserUser.id, BASELINE_COPY, 1.02);

  await chooserPage.goto('/me/submissions');
  const choice = chooserPage.getByTestId(`final-choice-${SLUG}`);
  await expect(choice).toContainText('best score, by default');
  await expect(choice.getByRole('link', { name: bestId })).toBeVisible();
  const bestRow = chooserPage.getByTestId(`my-submission-${bestId}`);
  await expect(bestRow.getByTestId('counts-for-final')).toHaveText('counts (best)');
  const chosenRow = chooserPage.getByTestId(`my-submission-${chosenId}`);
  await chosenRow.getByRole('button', { name: 'Count this one for the final' }).click();
  await expect(chosenRow.getByTestId('counts-for-final')).toHaveText('counts (chosen)', {
    timeout: 15_000,
  });
  await expect(choice).toContainText('chosen by you');
  await expect(bestRow.getByRole('button', { name: 'Count this one for the final' })).toBeVisible();
  await screenshots(chooserPage, testInfo, 'my-submissions-final-choice');
  // The submission's own page says so too.
  await chooserPage.goto(`/submissions/${chosenId}`);
  await expect(chooserPage.getByTestId('final-choice')).toContainText('chosen by you');
  cast = { chooser, other, chosenId, bestId, otherId };
});

test('the organizer is refused before the deadline, closes the contest and starts the final evaluation', async ({
  page,
  browser,
}, testInfo) => {
  if (!cast) throw new Error('the previous test did not leave the finalists');
  await signInAsOrganizer(page);
  await page.goto('/organizer');
  await page.getByRole('link', { name: 'Final evaluation' }).first().click();
  await expect(page).toHaveURL(new RegExp(`/organizer/challenges/${SLUG}/final$`));

  // Open contest: the form says why it cannot start, and its button is off.
  // (wordcount has no deadline here: the organizer is told to close it first.)
  await expect(page.getByTestId('final-refusal')).toContainText(
    /starts after the deadline|close it first/,
  );
  await expect(page.getByRole('button', { name: 'Start final evaluation' })).toBeDisabled();
  const finalists = page.getByTestId('finalists');
  const chooserRow = finalists.getByRole('row').filter({ hasText: cast.chooser.name });
  await expect(chooserRow).toContainText('chosen');
  await expect(chooserRow.getByRole('link', { name: cast.chosenId })).toBeVisible();
  await expect(finalists.getByRole('row').filter({ hasText: cast.other.name })).toContainText(
    'best score, by default',
  );
  await screenshots(page, testInfo, 'console-final-before-deadline');

  // Close the contest from its settings, as the console says.
  await page
    .getByRole('navigation', { name: 'Organizer console' })
    .getByRole('link', { name: `${SLUG}: settings` })
    .click();
  await page.getByRole('button', { name: 'Close contest' }).click();
  const close = page.getByRole('dialog', { name: 'Close contest' });
  await close.getByLabel('Reason').fill('e2e: the deadline of the final');
  await close.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toContainText('The contest is closed', {
    timeout: 15_000,
  });

  await page
    .getByRole('navigation', { name: 'Organizer console' })
    .getByRole('link', { name: `${SLUG}: final evaluation` })
    .click();
  await expect(page.getByTestId('final-refusal')).toHaveCount(0);
  // The form says how many rounds can separate the finalists present at all (the shared e2e
  // database may hold other contestants' accepted submissions too: count what the form counts).
  const present = /(\d+) finalists? on/.exec(
    (await page.getByRole('form', { name: 'Start the final evaluation' }).textContent()) ?? '',
  );
  expect(present, 'the form names its finalists').not.toBeNull();
  const needed = roundsToSeparateFinalists(Number(present![1]), DEFAULT_FINAL_ERROR_RATE);
  await expect(page.getByTestId('final-rounds-needed')).toContainText(
    `at least ${needed} rounds are needed`,
  );
  await page.getByLabel('Rounds per target').fill(String(MIN_FINAL_ROUNDS));
  await page.getByRole('button', { name: 'Start final evaluation' }).click();
  const confirm = page.getByRole('dialog', { name: 'Start final evaluation' });
  await expect(confirm).toContainText(`${MIN_FINAL_ROUNDS} rounds`);
  await expect(confirm.getByTestId('final-too-few-rounds')).toHaveCount(
    MIN_FINAL_ROUNDS < needed ? 1 : 0,
  );
  await screenshots(page, testInfo, 'console-final-start-dialog');
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  // The page re-renders with the running evaluation in place of the form.
  await expect(page.getByTestId('final-evaluation')).toContainText('Running', { timeout: 30_000 });
  const sessions = page.getByTestId('final-sessions');
  for (const target of TARGETS)
    await expect(sessions.getByTestId(`final-rounds-${target}`)).toContainText(
      `/ ${MIN_FINAL_ROUNDS}`,
    );
  await screenshots(page, testInfo, 'console-final-running');

  // The public sees that it runs, on the challenge page and the leaderboard.
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(`/challenges/${SLUG}`);
  await expect(visitor.getByTestId('final-banner')).toContainText('Final evaluation in progress');
  await visitor.goto(`/challenges/${SLUG}/leaderboard`);
  await expect(visitor.getByTestId('final-banner')).toContainText('Final evaluation in progress');
  await visitor.context().close();
});

test('the evaluation finishes, the organizer publishes, and a visitor sees the final leaderboard', async ({
  page,
  browser,
}, testInfo) => {
  test.setTimeout(FINAL_DONE_WITHIN_MS + 3 * 60_000);
  if (!cast) throw new Error('the first test did not leave the finalists');
  await signInAsOrganizer(page);
  await page.goto(`/organizer/challenges/${SLUG}/final`);
  const evaluation = page.getByTestId('final-evaluation');
  // The page refreshes itself while running; a reload now and then reads the same.
  await expect(async () => {
    await page.reload();
    await expect(evaluation).not.toContainText('Failed', { timeout: 1_000 });
    await expect(evaluation.getByRole('button', { name: 'Publish final results' })).toBeVisible({
      timeout: 1_000,
    });
  }).toPass({ timeout: FINAL_DONE_WITHIN_MS, intervals: [10_000] });
  for (const target of TARGETS)
    await expect(evaluation.getByTestId(`final-rounds-${target}`)).toHaveText(
      `${MIN_FINAL_ROUNDS} / ${MIN_FINAL_ROUNDS}`,
    );
  const ranking = evaluation.getByTestId('final-ranking');
  for (const c of [cast.chooser, cast.other])
    await expect(finalistRow(ranking, c.name)).toHaveAttribute('data-place', /^\d+=?$/);
  await screenshots(page, testInfo, 'console-final-done');

  // Done but not published: the public is told the results are under review, and sees none.
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(`/challenges/${SLUG}/final`);
  await expect(visitor.getByTestId('final-banner')).toContainText('Final results under review');
  await expect(visitor.getByTestId('final-ranking')).toHaveCount(0);
  expect((await visitor.request.get(`/challenges/${SLUG}/final/export.csv`)).status()).toBe(404);

  await evaluation.getByRole('button', { name: 'Publish final results' }).click();
  const publish = page.getByRole('dialog', { name: 'Publish final results' });
  await publish.getByRole('button', { name: 'Confirm' }).click();
  await expect(evaluation).toContainText('Published', { timeout: 15_000 });

  // The visitor: the challenge page leads with the final result, which links to the leaderboard.
  await expect(async () => {
    await visitor.goto(`/challenges/${SLUG}`);
    await expect(visitor.getByTestId('final-lead')).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await screenshots(visitor, testInfo, 'challenge-final-lead');
  await visitor
    .getByTestId('final-lead')
    .getByRole('link', { name: 'The final leaderboard' })
    .click();
  await expect(visitor).toHaveURL(new RegExp(`/challenges/${SLUG}/final$`));
  const table = visitor.getByTestId('final-ranking');
  const places: string[] = [];
  for (const c of [cast.chooser, cast.other]) {
    const row = finalistRow(table, c.name);
    await expect(row).toHaveAttribute('data-place', /^\d+=?$/);
    places.push((await row.getAttribute('data-place')) ?? '');
    // A speedup with its interval on every target, and the combined score.
    await expect(row.getByRole('cell').nth(2)).toHaveText(/\d+(\.\d+)?×\d+\.\d+–\d+\.\d+/);
  }
  // A shared place reads "n=" on every finalist who shares it, with the reason.
  for (const place of places.filter((p) => p.endsWith('=')))
    await expect(
      table.locator(`tr[data-place="${place}"]`).getByTestId('tie-reason'),
    ).not.toHaveCount(0);
  await expect(visitor.getByTestId('final-method')).toContainText('How places were decided');
  await expect(visitor.getByTestId('final-error-rate')).toContainText('Error rate 5%');
  await screenshots(visitor, testInfo, 'final-leaderboard');

  // The CSV export: one row per finalist with the same places.
  const csv = await visitor.request.get(`/challenges/${SLUG}/final/export.csv`);
  expect(csv.status()).toBe(200);
  expect(csv.headers()['content-disposition']).toContain(`${SLUG}-final.csv`);
  const lines = (await csv.text())
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split('\r\n');
  expect(lines[0]).toMatch(/^place,shared_place,tied_with,contestant,/);
  for (const [i, c] of [cast.chooser, cast.other].entries()) {
    const line = lines.find((l) => l.includes(`,${c.name},`));
    expect(line, `${c.name} in the CSV`).toBeDefined();
    expect(line!.split(',')[0]).toBe(places[i]!.replace('=', ''));
  }
  const md = await visitor.request.get(`/challenges/${SLUG}/final/export.md`);
  expect(await md.text()).toContain('final result');

  // The provisional leaderboard stays, labelled so, with the way to the final result.
  await visitor.goto(`/challenges/${SLUG}/leaderboard`);
  await expect(visitor.getByRole('heading', { level: 1 })).toContainText('provisional leaderboard');
  await expect(visitor.getByTestId('final-banner')).toContainText('Provisional');
  await screenshots(visitor, testInfo, 'leaderboard-provisional');
  await visitor.context().close();
});
