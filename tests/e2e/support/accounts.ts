// Accounts through the real forms: a fresh contestant per test (unique e-mail, so the tests never
// depend on each other's users) and the seeded organizer.
import { randomBytes } from 'node:crypto';
import { expect, type Page } from '@playwright/test';
import { ORGANIZER } from './e2e-env';

export interface Contestant {
  name: string;
  email: string;
  password: string;
}

export function newContestant(label: string): Contestant {
  const id = randomBytes(3).toString('hex');
  return {
    name: `${label} ${id}`,
    email: `${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${id}@e2e.perfjudge.test`,
    password: `pw-${randomBytes(8).toString('hex')}`,
  };
}

/**
 * The password hash is slow by design (scrypt), and these machines are shared: signing up or in
 * may take several seconds, longer than an ordinary expectation waits.
 */
const AUTH_MS = 30_000;

/** Signs up through /sign-up and waits for the header to show the signed-in account. */
export async function signUp(page: Page, contestant: Contestant): Promise<void> {
  await page.goto('/sign-up');
  await page.getByLabel('Name').fill(contestant.name);
  await page.getByLabel('E-mail').fill(contestant.email);
  await page.getByLabel('Password').fill(contestant.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible({ timeout: AUTH_MS });
  await expect(page.getByRole('link', { name: contestant.name })).toBeVisible();
}

export async function signIn(page: Page, account: { email: string; password: string }) {
  await page.goto('/sign-in');
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible({ timeout: AUTH_MS });
}

export async function signInAsOrganizer(page: Page): Promise<void> {
  await signIn(page, ORGANIZER);
  await expect(
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organizer' }),
  ).toBeVisible();
}
