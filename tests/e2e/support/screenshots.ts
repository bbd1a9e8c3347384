// Screenshots kept as test artifacts: written into the test's folder under test-results/ and
// attached to its report, whether the test passes or fails.
import type { Page, TestInfo } from '@playwright/test';

export async function keepScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}
