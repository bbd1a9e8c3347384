// Making contestant-style trees and patches from source text: used by tests, benchmarks and the
// example submissions, so every patch they judge is a real `git diff` against the template.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadChallenge } from './load-manifest';
import { DEFAULT_CHALLENGE } from './default-challenge';

const execFileAsync = promisify(execFile);

/** Changed files: new content, or null to delete the file. */
export type TreeChanges = Record<string, string | null>;

/** Copies the template to `dir` and applies the changes. */
export async function writeSolutionTree(
  dir: string,
  changes: TreeChanges,
  slug = DEFAULT_CHALLENGE,
): Promise<void> {
  const challenge = await loadChallenge(slug);
  await cp(challenge.templateDir, dir, { recursive: true });
  await applyChanges(dir, changes);
}

async function applyChanges(dir: string, changes: TreeChanges): Promise<void> {
  for (const [file, content] of Object.entries(changes)) {
    const full = path.join(dir, file);
    if (content === null) await rm(full);
    else {
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, content);
    }
  }
}

/** A real `git diff` of the template with the changes: exactly what a contestant would submit. */
export async function makePatch(changes: TreeChanges, slug = DEFAULT_CHALLENGE): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-patch-'));
  const git = (...args: string[]) =>
    execFileAsync('git', ['-c', 'user.email=judge@example.com', '-c', 'user.name=judge', ...args], {
      cwd: dir,
      maxBuffer: 64 << 20,
    });
  try {
    await writeSolutionTree(dir, {}, slug);
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'template');
    await applyChanges(dir, changes);
    await git('add', '-A');
    return (await git('diff', '--cached')).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The template's wordcount.cpp with the SOLUTION branch replaced by `code`. */
export async function solutionSource(code: string): Promise<string> {
  const challenge = await loadChallenge(DEFAULT_CHALLENGE);
  const template = await readFile(path.join(challenge.templateDir, 'wordcount.cpp'), 'utf8');
  const start = template.indexOf('#ifdef SOLUTION');
  const end = template.indexOf('#else');
  if (start < 0 || end < 0) throw new Error('template wordcount.cpp has no SOLUTION branch');
  return `${template.slice(0, start)}#ifdef SOLUTION\n${code}\n${template.slice(end)}`;
}
