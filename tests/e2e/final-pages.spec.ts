// The final evaluation's pages in every state, in a real browser against the real app, with the
// states written straight into the database (as live-contest.spec.ts records judging results), so
// each is reached in seconds: the public banners while it runs and while it is under review; the
// console's ranking with a shared place, its reason and a plausibility flag; publishing; the
// public final leaderboard ("2=", intervals, method, error rate) with its CSV and Markdown; the
// provisional leaderboard labelled; and an organizer's repeated judgings side by side with their
// spread. final-evaluation.spec.ts runs the same evaluation for real on the runners.
import { expect, test, type Locator, type Page, type TestInfo } from '@playwright/test';
import type { FinalRanking } from '../../lib/core/ranking/final-ranking';
import { createDbClient, type Db } from '../../lib/server/db/client';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { makeResult, makeUser } from '../../dev/db-fixtures';
import { signInAsOrganizer } from './support/accounts';
import { e2eDatabaseUrl } from './support/e2e-env';
import { keepScreenshot } from './support/screenshots';
import { TARGETS } from './support/submissions';

test.describe.configure({ mode: 'serial' });

const SLUG = 'wordcount';
let db: Db;
let version: number;
let seeded:
  { evaluationId: string; names: string[]; userIds: string[]; submissionId: string } | undefined;

test.beforeAll(async () => {
  db = createDbClient(e2eDatabaseUrl());
  version = (
    await db.challengeVersion.findFirstOrThrow({
      where: { challenge: { slug: SLUG } },
      orderBy: { version: 'desc' },
      select: { version: true },
    })
  ).version;
});

test.afterAll(async () => {
  await db.finalEvaluation.deleteMany({ where: { challenge: { slug: SLUG } } });
  await db.challenge.update({ where: { slug: SLUG }, data: { closedAt: null } });
  await db.$disconnect();
});

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

async function accepted(userId: string, speedup: number): Promise<string> {
  const created = await createSubmission(db, {
    userId,
    challengeSlug: SLUG,
    patchText: 'diff --git a/src/wordcount.cpp b/src/wordcount.cpp\n',
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

const TIE = 'The judge cannot tell them apart: p = 0.41 against a threshold of 0.025.';
const METHOD =
  'Per target, each finalist’s speedup is the median over rounds of the baseline’s time over theirs; places follow pairwise sign tests of the per-round score differences, Holm-corrected.';

/** Three finalists placed 1, 2=, 2= and one excluded, with the sessions done. */
async function seedEvaluation(status: 'RUNNING' | 'DONE') {
  const tag = Date.now().toString(36);
  const names = [`Alpha ${tag}`, `Beta ${tag}`, `Gamma ${tag}`, `Delta ${tag}`];
  const users = await Promise.all(names.map((n) => makeUser(db, n)));
  const submissions = await Promise.all(users.map((u, i) => accepted(u, 3 - i * 0.5)));
  const challenge = await db.challenge.findUniqueOrThrow({ where: { slug: SLUG } });
  const challengeVersion = await db.challengeVersion.findFirstOrThrow({
    where: { challengeId: challenge.id, version },
    include: { targets: true },
  });
  const evaluation = await db.finalEvaluation.create({
    data: {
      challengeId: challenge.id,
      challengeVersionId: challengeVersion.id,
      status,
      seed: 'e2e-final-seed',
      benchmarkBytes: 1 << 20,
      rounds: 5,
      errorRate: 0.05,
      finishedAt: status === 'DONE' ? new Date() : null,
    },
  });
  const entrants = await Promise.all(
    users.map((userId, i) =>
      db.finalEntrant.create({
        data: {
          evaluationId: evaluation.id,
          userId,
          submissionId: submissions[i]!,
          selectedExplicitly: i === 1,
          provisionalScore: 6 - i,
          place: status === 'DONE' && i < 3 ? (i === 0 ? 1 : 2) : null,
          score: status === 'DONE' && i < 3 ? 6 - i * 0.9 : null,
          excludedReason: i === 3 ? 'wrong output on the final input (line 3 differs)' : null,
        },
      }),
    ),
  );
  for (const t of challengeVersion.targets)
    await db.finalSession.create({
      data: {
        evaluationId: evaluation.id,
        targetId: t.id,
        status: status === 'DONE' ? 'DONE' : 'JUDGING',
        roundsPlanned: 5,
        roundsDone: status === 'DONE' ? 5 : 2,
        startedAt: new Date(Date.now() - 60_000),
      },
    });
  if (status === 'DONE') {
    const ids = entrants.map((e) => e.id);
    const figure = (target: string, speedup: number) => ({
      target,
      speedup,
      ciLow: speedup * 0.96,
      ciHigh: speedup * 1.04,
      rounds: 5,
    });
    const ranking: FinalRanking = {
      entrants: [0, 1, 2].map((i) => ({
        entrant: ids[i]!,
        perTarget: TARGETS.map((t) => figure(t, 3 - i * 0.45)),
        score: 6 - i * 0.9,
        scoreCiLow: 6 - i * 0.9 - 0.2,
        scoreCiHigh: 6 - i * 0.9 + 0.2,
        place: i === 0 ? 1 : 2,
        tiedWith: i === 0 ? [] : [ids[i === 1 ? 2 : 1]!],
        tieReason: i === 0 ? null : TIE,
      })),
      comparisons: [],
      errorRate: 0.05,
      formula: 'SUM',
      method: METHOD,
      warnings: [],
      excluded: [],
    };
    await db.finalEvaluation.update({
      where: { id: evaluation.id },
      data: { ranking: ranking as unknown as object },
    });
  }
  return { evaluationId: evaluation.id, names, userIds: users, submissionId: submissions[0]! };
}

test('the public sees "in progress", then "under review"; the console shows the ranking', async ({
  page,
}, testInfo) => {
  await db.challenge.update({ where: { slug: SLUG }, data: { closedAt: new Date() } });
  const running = await seedEvaluation('RUNNING');
  await page.goto(`/challenges/${SLUG}`);
  await expect(page.getByTestId('final-banner')).toContainText('Final evaluation in progress');
  await screenshots(page, testInfo, 'challenge-final-running');
  await db.finalEvaluation.delete({ where: { id: running.evaluationId } });

  seeded = await seedEvaluation('DONE');
  await expect(async () => {
    await page.goto(`/challenges/${SLUG}/leaderboard`);
    await expect(page.getByTestId('final-banner')).toContainText('Final results under review', {
      timeout: 1_000,
    });
  }).toPass({ timeout: 15_000 });
  await page.goto(`/challenges/${SLUG}/final`);
  await expect(page.getByTestId('final-banner')).toContainText('Final results under review');
  await expect(page.getByTestId('final-ranking')).toHaveCount(0);

  await signInAsOrganizer(page);
  await page.goto(`/organizer/challenges/${SLUG}/final`);
  const evaluation = page.getByTestId('final-evaluation');
  await expect(evaluation).toContainText('Done, not published');
  const ranking = evaluation.getByTestId('final-ranking');
  const [alpha, beta, gamma, delta] = seeded.names;
  await expect(finalistRow(ranking, alpha!)).toHaveAttribute('data-place', '1');
  for (const name of [beta!, gamma!]) {
    const row = finalistRow(ranking, name);
    await expect(row).toHaveAttribute('data-place', '2=');
    await expect(row.getByTestId('tie-reason')).toContainText(TIE);
  }
  await expect(finalistRow(ranking, delta!)).toContainText('Not placed: wrong output');
  await expect(evaluation).toContainText(METHOD);
  await screenshots(page, testInfo, 'console-final-ranking');
});

test('publishing makes the final leaderboard the result, with its exports', async ({
  page,
}, testInfo) => {
  if (!seeded) throw new Error('the previous test did not seed an evaluation');
  await signInAsOrganizer(page);
  await page.goto(`/organizer/challenges/${SLUG}/final`);
  await page.getByRole('button', { name: 'Publish final results' }).click();
  const dialog = page.getByRole('dialog', { name: 'Publish final results' });
  await expect(dialog.getByLabel('Reason')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByTestId('final-evaluation')).toContainText('Published', {
    timeout: 15_000,
  });

  await page.context().clearCookies();
  await expect(async () => {
    await page.goto(`/challenges/${SLUG}/final`);
    await expect(page.getByTestId('final-ranking')).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  const [alpha, beta] = seeded.names;
  const table = page.getByTestId('final-ranking');
  await expect(finalistRow(table, beta!)).toHaveAttribute('data-place', '2=');
  await expect(finalistRow(table, alpha!).getByRole('cell').nth(2)).toHaveText('3.00×2.88–3.12');
  await expect(page.getByTestId('final-error-rate')).toContainText('Error rate 5%');
  await screenshots(page, testInfo, 'final-leaderboard-seeded');
  // On a phone the table scrolls in its own box; the page does not scroll sideways.
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
    375,
  );
  await page.setViewportSize({ width: 1280, height: 800 });
  // A public page: rows are marked by an opaque key, never by the internal user id.
  const html = await (await page.request.get(`/challenges/${SLUG}/final`)).text();
  expect(html).toContain(alpha!);
  for (const id of seeded.userIds) expect(html).not.toContain(id);

  const csv = await (await page.request.get(`/challenges/${SLUG}/final/export.csv`)).text();
  expect(csv).toContain(`,${beta},`);
  expect(csv.split('\r\n').find((l) => l.includes(`,${beta},`))).toMatch(/^2,yes,/);
  const md = await (await page.request.get(`/challenges/${SLUG}/final/export.md`)).text();
  expect(md).toContain('| 2= |');

  await page.goto(`/challenges/${SLUG}`);
  await expect(page.getByTestId('final-lead')).toContainText(alpha!);
  await screenshots(page, testInfo, 'challenge-final-lead-seeded');
  await page.goto(`/challenges/${SLUG}/leaderboard`);
  await expect(page.getByTestId('final-banner')).toContainText('Provisional');
  await screenshots(page, testInfo, 'leaderboard-provisional-seeded');
});

test('an organizer sees repeated judgings side by side with their spread', async ({
  page,
}, testInfo) => {
  if (!seeded) throw new Error('the first test did not seed a submission');
  const submission = await db.submission.findUniqueOrThrow({
    where: { id: seeded.submissionId },
    include: { judgings: { include: { target: true } } },
  });
  const target = submission.judgings[0]!.target;
  const speedups = [2.9, 3.1, 3.0];
  for (const [i, speedup] of speedups.entries())
    await db.judgingRepeat.create({
      data: {
        submissionId: submission.id,
        targetId: target.id,
        seriesId: 'e2e-series',
        index: i + 1,
        status: 'DONE',
        verdict: 'ACCEPTED',
        speedup,
        ciLow: speedup - 0.1,
        ciHigh: speedup + 0.1,
        finishedAt: new Date(),
      },
    });
  await signInAsOrganizer(page);
  await page.goto(`/organizer/submissions/${submission.id}`);
  await expect(page.getByRole('form', { name: 'Rejudge N times' })).toBeVisible();
  const series = page.getByTestId(`repeat-series-${target.name}`);
  await expect(series.getByTestId('repeat-spread')).toContainText('2.90×–3.10× · CV 3.3%');
  await expect(series.getByRole('row')).toHaveCount(4);
  // The form refuses a count out of range before asking the server.
  const form = page.getByRole('form', { name: 'Rejudge N times' });
  await form.getByRole('spinbutton', { name: /^Times/ }).fill('30');
  await form.getByRole('textbox', { name: /^Reason/ }).fill('e2e: dispute');
  await page.getByRole('button', { name: 'Rejudge N times' }).click();
  await expect(page.getByText('Times: a whole number from 2 to 20')).toBeVisible();
  await screenshots(page, testInfo, 'organizer-repeats');
});
