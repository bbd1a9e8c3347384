// Accounts in the browser: sign up, the contestant's header links, sign out and sign in again.
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
