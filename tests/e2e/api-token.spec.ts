// The command line's way in: a contestant creates an API token on their account page, the HTTP API
// takes it as a bearer token (POST /api/submissions), and refuses it once revoked. The patch sent is
// one intake refuses (it edits the protected driver), so nothing is queued for the runners.
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { newContestant, signUp } from './support/accounts';
import { readPatch, SUBMISSIONS_DIR } from './support/submissions';

const REFUSED_PATCH = readPatch(path.join(SUBMISSIONS_DIR, 'rejected/touches-main-cpp.patch'));
const TOKEN_NAME = 'e2e command line';

test('an API token submits over HTTP until it is revoked', async ({ page, request }) => {
  const contestant = newContestant('Cli');
  await signUp(page, contestant);
  await page.getByRole('link', { name: contestant.name }).click();
  await expect(page).toHaveURL(/\/account$/);
  await page.getByLabel('Token name').fill(TOKEN_NAME);
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-token').innerText()).trim();
  expect(token.length).toBeGreaterThan(20);

  // `request` carries no browser cookies: only the bearer token identifies the contestant.
  const submit = (authorization?: string) =>
    request.post('/api/submissions', {
      headers: authorization ? { authorization } : {},
      data: { challenge: 'wordcount', patch: REFUSED_PATCH },
    });
  const refused = await submit(`Bearer ${token}`);
  expect(refused.status()).toBe(422);
  expect(await refused.json()).toMatchObject({ error: { file: 'main.cpp' } });
  expect((await submit()).status()).toBe(401);
  expect((await submit(`Bearer ${token}x`)).status()).toBe(401);

  // The account page shows the token was used, then revokes it (after a confirmation dialog).
  await page.reload();
  const row = page.getByTestId('api-tokens').getByRole('row').filter({ hasText: TOKEN_NAME });
  await expect(row.getByRole('cell').nth(3)).not.toHaveText('never');
  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: `Revoke ${TOKEN_NAME}` }).click();
  await expect(row).toContainText('Revoked');
  expect((await submit(`Bearer ${token}`)).status()).toBe(401);
});
