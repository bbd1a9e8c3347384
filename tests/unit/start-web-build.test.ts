// npm start's reuse rule for the web app's production build (scripts/start/web.ts): a build whose
// BUILD_ID is newer than every web source is served as it is (a second start, or a build copied
// in, as tests/integration/newcomer.test.ts does); one that any source is newer than, or none, is
// built again. Folders that are not sources (node_modules, the generated Prisma client, any .next*
// build folder) never make a build stale.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { webBuildIsCurrent } from '../../scripts/start/web';

let root: string;
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

/** A file under the temporary checkout with the given modification time (seconds). */
function file(relative: string, seconds: number): void {
  const p = path.join(root, relative);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, relative);
  utimesSync(p, at(seconds), at(seconds));
}

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'perfjudge-web-build-'));
  file('app/page.tsx', 100);
  file('lib/core/rule.ts', 110);
  file('next.config.ts', 90);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

it('reuses a build newer than every source', () => {
  file('.next/BUILD_ID', 120);
  expect(webBuildIsCurrent(root, '.next')).toBe(true);
  // Each build folder is judged by its own BUILD_ID.
  expect(webBuildIsCurrent(root, '.next-other')).toBe(false);
});

it('builds again when there is no build, or any source is newer', () => {
  expect(webBuildIsCurrent(root, '.next')).toBe(false);
  file('.next/BUILD_ID', 120);
  // What `next build` compiles: the app and what it imports, its configuration, the schema.
  for (const source of [
    'app/submissions/new.tsx',
    'lib/server/new.ts',
    'contracts/new.ts',
    'public/logo.svg',
    'next.config.ts',
    'tsconfig.json',
    'package-lock.json',
    'prisma/schema.prisma',
  ]) {
    file(source, 130);
    expect(webBuildIsCurrent(root, '.next'), source).toBe(false);
    utimesSync(path.join(root, source), at(100), at(100));
    expect(webBuildIsCurrent(root, '.next'), source).toBe(true);
  }
});

it('is not made stale by what is not a source', () => {
  file('.next/BUILD_ID', 120);
  file('lib/server/db/generated/prisma/client.ts', 200);
  file('app/node_modules/x/index.js', 200);
  file('.next/server/app/page.html', 200);
  file('tests/unit/x.test.ts', 200);
  file('docs/README.md', 200);
  expect(webBuildIsCurrent(root, '.next')).toBe(true);
});
