// Takes the README's screenshot (docs/screenshot.png) from a running `npm start`: signs in as a
// contestant and captures a page with Debian's Chromium (Playwright's own browser download is not
// used). Usage: npx tsx scripts/start-screenshot.ts <base url> <email> <password> <page path>
import { chromium } from '@playwright/test';
import path from 'node:path';
import { REPO_ROOT } from '../lib/core/config/env';

const [base, email, password, pagePath] = process.argv.slice(2);
if (!base || !email || !password || !pagePath) {
  console.error('usage: start-screenshot.ts <base url> <email> <password> <page path>');
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
  const page = await context.newPage();
  // The context's request client shares the browser's cookie jar: the session is the page's.
  const signIn = await page.request.post(`${base}/api/auth/sign-in/email`, {
    data: { email, password },
    headers: { origin: base },
  });
  if (!signIn.ok()) throw new Error(`sign-in: ${signIn.status()} ${await signIn.text()}`);
  await page.goto(`${base}${pagePath}`, { waitUntil: 'networkidle' });
  const out = path.join(REPO_ROOT, 'docs', 'screenshot.png');
  await page.screenshot({ path: out });
  console.log(`saved ${out}`);
} finally {
  await browser.close();
}
