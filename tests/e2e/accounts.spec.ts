// Accounts in the browser: sign up, the contestant's header links, sign out and sign in again; the
// owner's browser (its device cookie) through a guessing run at the account, told of it after.
import { expect, test } from '@playwright/test';
import { newContestant, signIn, signUp } from './support/accounts';

test('a new contestant signs up, signs out and signs in again', async ({ page }) => {
  const contestant = newContestant('Signup');
  await signUp(page, contestant);
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const link of ['Challenge', 'Leaderboard', 'Submit', 'My submissions'])
    await expect(nav.getByRole('link', { name: link })).toBeVisible();
  // A contestant is not an organizer.
  await expect(nav.getByRole('link', { name: 'Organizer' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Submit' })).toHaveCount(0);

  await signIn(page, contestant);
  await expect(page.getByRole('link', { name: contestant.name })).toBeVisible();
});

test('signing in with a wrong password is refused in words', async ({ page }) => {
  const contestant = newContestant('Wrongpw');
  await signUp(page, contestant);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.goto('/sign-in');
  await page.getByLabel('E-mail').fill(contestant.email);
  await page.getByLabel('Password').fill(`${contestant.password}-not`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The form's own alert (Next.js's route announcer is an alert too).
  await expect(page.locator('form').getByRole('alert')).toHaveText('Wrong e-mail or password.', {
    timeout: 30_000,
  });
});

test("the owner's browser gets through a guessing run at the account, and is told of it", async ({
  page,
  playwright,
  baseURL,
}) => {
  const owner = newContestant('Owner');
  await signUp(page, owner); // this browser now holds the account's device cookie
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
  // Someone else, from the same address (127.0.0.1), guesses until the account is refused.
  const attacker = await playwright.request.newContext({ baseURL });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    const answer = await attacker.post('/api/auth/sign-in/email', {
      data: { email: owner.email, password: `guess number ${i}` },
      headers: { origin: baseURL! },
    });
    statuses.push(answer.status());
  }
  expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  const refused = await attacker.post('/api/auth/sign-in/email', {
    data: { email: owner.email, password: owner.password },
    headers: { origin: baseURL! },
  });
  expect(refused.status()).toBe(429);
  await attacker.dispose();
  // The owner's browser signs in all the same, and is told how many and when.
  await page.goto('/sign-in');
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const report = page.getByTestId('sign-in-report');
  await expect(report).toContainText('5 failed sign-in attempts at your account', {
    timeout: 30_000,
  });
  await report.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
});
