// The public pages on a 375 px phone screen: kept as screenshots, and checked not to scroll
// sideways (wide tables scroll inside their own box instead).
import { expect, test } from '@playwright/test';
import { keepScreenshot } from './support/screenshots';

test.use({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });

for (const [name, path] of [
  ['challenge', '/challenges/wordcount'],
  ['leaderboard', '/challenges/wordcount/leaderboard'],
  ['final result', '/challenges/wordcount/final'],
  ['sign-up', '/sign-up'],
] as const)
  test(`the ${name} page fits a 375 px screen`, async ({ page }, testInfo) => {
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    // Evaluated in the page (a string: this project's Node types have no DOM).
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(width, 'the page is wider than the screen').toBeLessThanOrEqual(375);
    await keepScreenshot(page, testInfo, `${name}-375`);
  });
