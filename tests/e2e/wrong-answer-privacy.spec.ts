// A wrong patch: its author sees the first differing lines on the submission page; a second
// contestant (and a signed-out visitor) can open neither the page, nor the raw patch, nor its JSON.
// Serial: the second test looks at the first's submission (one judging instead of two).
import { expect, test } from '@playwright/test';
import { newContestant, signUp } from './support/accounts';
import {
  JUDGED_WITHIN_MS,
  RELOAD_EVERY_MS,
  submitByPasting,
  TARGETS,
  WRONG_PATCH,
} from './support/submissions';

test.describe.configure({ mode: 'serial' });

let submissionId = '';

test('a wrong patch shows the first differing lines', async ({ page }) => {
  await signUp(page, newContestant('Wrong'));
  submissionId = await submitByPasting(page, WRONG_PATCH);
  // The first target to fail settles the submission; the other is then cancelled ("Not judged:
  // the submission failed on …") unless both finished first.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('overall-verdict')).toHaveText('Wrong answer', {
      timeout: 1_000,
    });
    for (const target of TARGETS)
      await expect(page.getByTestId(`verdict-${target}`)).toHaveText(/Wrong answer|Not judged/, {
        timeout: 1_000,
      });
  }).toPass({ timeout: JUDGED_WITHIN_MS, intervals: [RELOAD_EVERY_MS] });

  let judged = 0;
  for (const target of TARGETS) {
    if ((await page.getByTestId(`verdict-${target}`).innerText()).includes('Not judged')) continue;
    judged++;
    const excerpt = page.getByTestId(`target-${target}`).getByTestId('diff-excerpt');
    await expect(excerpt).toBeVisible();
    await expect(excerpt.getByRole('columnheader')).toHaveText(['line', 'expected', 'got']);
    // The first differing line: the expected word count differs from what the patch printed.
    const first = excerpt.getByRole('row').nth(1).getByRole('cell');
    await expect(first.nth(0)).toHaveText(/^\d+$/);
    const [expected, got] = await Promise.all([first.nth(1).innerText(), first.nth(2).innerText()]);
    expect(expected).toMatch(/\S/);
    expect(got).not.toBe(expected);
  }
  expect(judged, 'at least one target shows the differing lines').toBeGreaterThan(0);
  await expect(page.getByTestId('overall-score')).toHaveText('–');

  // The author may read their own patch, as text and as JSON (the control for the next test).
  const patch = await page.request.get(`/submissions/${submissionId}/patch`);
  expect(patch.status()).toBe(200);
  expect(patch.headers()['content-type']).toMatch(/^text\/plain/);
  expect(await patch.text()).toContain('diff --git a/wordcount.cpp b/wordcount.cpp');
  const api = await page.request.get(`/api/submissions/${submissionId}`);
  expect(api.status()).toBe(200);
  expect(await api.json()).toMatchObject({ submissionId, verdict: 'WRONG_ANSWER' });

  // Signing out ends access at once in this browser, although pages take the session from a
  // signed cookie for up to a minute (lib/server/auth/auth.ts): the page is private again, the patch closed.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('link', { name: 'Sign in' }).first()).toBeVisible();
  await page.goto(`/submissions/${submissionId}`);
  await expect(page.getByTestId('private-submission')).toBeVisible();
  expect((await page.request.get(`/submissions/${submissionId}/patch`)).status()).toBe(404);
});

test('another contestant cannot open the patch, its page or its JSON', async ({
  page,
  browser,
}) => {
  expect(submissionId, 'the previous test made the submission').not.toBe('');
  await signUp(page, newContestant('Nosy'));

  const response = await page.goto(`/submissions/${submissionId}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId('overall-verdict')).toHaveCount(0);
  await expect(page.getByText('diff --git')).toHaveCount(0);

  const patchPage = await page.goto(`/submissions/${submissionId}/patch`);
  expect(patchPage?.status()).toBe(404);
  await expect(page.getByText('diff --git')).toHaveCount(0);

  // The API with this contestant's session cookie.
  const api = await page.request.get(`/api/submissions/${submissionId}`);
  expect([403, 404]).toContain(api.status());
  expect(await api.text()).not.toContain('wordcount.cpp');

  // Signed out: the page says it is private and offers to sign in; patch and API stay closed.
  const anonymous = await browser.newContext();
  try {
    const visitor = await anonymous.newPage();
    await visitor.goto(`/submissions/${submissionId}`);
    await expect(visitor.getByTestId('private-submission')).toContainText('private');
    await expect(visitor.getByRole('link', { name: 'Sign in' }).last()).toHaveAttribute(
      'href',
      /\/sign-in\?next=/,
    );
    expect((await visitor.request.get(`/submissions/${submissionId}/patch`)).status()).toBe(404);
    expect([401, 403, 404]).toContain(
      (await visitor.request.get(`/api/submissions/${submissionId}`)).status(),
    );
  } finally {
    await anonymous.close();
  }
});
