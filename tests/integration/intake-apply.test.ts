// Intake end to end: patches written by real git and diff from a repository made from the wordcount
// template, applied by real `git apply`, compared byte for byte with the contestant's tree.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';
import { listFiles, type IntakeResult } from '../../lib/core/intake';
import { applyPatch, DEFAULT_PATH_ENV, intakePatch } from '../../runner/intake';

const run = promisify(execFile);

let challenge: Challenge;
let root: string;
let repo: string;
let gitHome: string;
let counter = 0;

/** git with no user or system configuration, so the patches are what a default git writes. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    encoding: 'buffer',
    env: {
      PATH: DEFAULT_PATH_ENV,
      HOME: gitHome,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Contestant',
      GIT_AUTHOR_EMAIL: 'c@example.com',
      GIT_COMMITTER_NAME: 'Contestant',
      GIT_COMMITTER_EMAIL: 'c@example.com',
    },
    maxBuffer: 16 << 20,
  });
  return stdout.toString('latin1');
}

/** `diff` exits 1 when the trees differ; that is its success here. */
async function diff(cwd: string, ...args: string[]): Promise<Buffer> {
  try {
    await run('diff', args, { cwd, encoding: 'buffer', env: { PATH: DEFAULT_PATH_ENV } });
    return Buffer.alloc(0);
  } catch (error) {
    const failure = error as { code?: number; stdout?: Buffer };
    if (failure.code === 1 && failure.stdout) return failure.stdout;
    throw error;
  }
}

async function readTree(dir: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  for (const file of await listFiles(dir))
    tree[file] = (await readFile(path.join(dir, file))).toString('latin1');
  return tree;
}

function freshDest(): string {
  counter += 1;
  return path.join(root, `dest-${counter}`);
}

async function intake(patchText: Buffer | string, destDir = freshDest()): Promise<IntakeResult> {
  return intakePatch({ patchText, challenge, destDir });
}

/** The patch is accepted and the applied tree equals the repository's working tree. */
async function expectSameTree(patchText: Buffer | string): Promise<IntakeResult & { ok: true }> {
  const destDir = freshDest();
  const result = await intake(patchText, destDir);
  if (!result.ok) throw new Error(`rejected: ${result.reason}: ${result.message}`);
  expect(await readTree(destDir)).toEqual(await readTree(repo));
  return result;
}

const bin = (text: string) => Buffer.from(text, 'latin1');

beforeAll(async () => {
  challenge = await loadChallenge('wordcount');
  root = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-intake-'));
  gitHome = path.join(root, 'home');
  await mkdir(gitHome);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

beforeEach(async () => {
  // A fresh contestant repository per test: the pristine template, committed.
  repo = path.join(root, `repo-${++counter}`);
  await cp(challenge.templateDir, repo, { recursive: true });
  await git(repo, 'init', '-q');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', 'template');
});

async function edit(file: string, change: (text: string) => string): Promise<void> {
  const full = path.join(repo, file);
  await writeFile(full, bin(change((await readFile(full)).toString('latin1'))));
}

async function create(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(repo, file)), { recursive: true });
  await writeFile(path.join(repo, file), bin(text));
}

describe('intakePatch with real git output', () => {
  it('applies a git diff with an edit, a new header in a sub-folder and an empty file', async () => {
    await edit('init.cpp', (t) =>
      t.replace('void init() {}', 'void init() {\n  // nothing yet\n}'),
    );
    await create('lib/fast/table.hpp', '#pragma once\ninline int slots() { return 64; }\n');
    await create('empty.hpp', '');
    await git(repo, 'add', '-A');
    const patch = await git(repo, 'diff', '--cached');
    const result = await expectSameTree(bin(patch));
    expect(result).toMatchObject({ format: 'git-diff', mails: 1 });
    expect(result.files).toEqual([
      { path: 'empty.hpp', change: 'added', additions: 0, deletions: 0 },
      { path: 'init.cpp', change: 'modified', additions: 3, deletions: 1 },
      { path: 'lib/fast/table.hpp', change: 'added', additions: 2, deletions: 0 },
    ]);
  });

  it('applies a 2-mail format-patch series in order, mail 2 editing what mail 1 added', async () => {
    await create('counter.hpp', '#pragma once\nstruct Counter {\n  int n = 0;\n};\n');
    await git(repo, 'add', 'counter.hpp');
    await git(repo, 'commit', '-qm', 'Add a counter');
    await edit('counter.hpp', (t) => t.replace('int n', 'long n'));
    await git(repo, 'commit', '-qam', 'Widen the counter');
    const series = await git(repo, 'format-patch', '-2', '--stdout');
    expect(series.match(/^Subject: \[PATCH \d\/2\]/gm)).toHaveLength(2);
    const result = await expectSameTree(bin(series));
    expect(result).toMatchObject({ format: 'format-patch', mails: 2 });
    expect(result.files).toEqual([
      { path: 'counter.hpp', change: 'added', additions: 5, deletions: 1 },
    ]);
  });

  it('applies `diff -ruN template mine` (timestamps, -p1) and `diff -u x.orig x` (-p0)', async () => {
    const mine = path.join(root, `mine-${counter}`);
    await cp(repo, mine, { recursive: true, filter: (s) => path.basename(s) !== '.git' });
    await writeFile(path.join(mine, 'init.cpp'), '#include "wordcount.hpp"\nvoid init() {}\n');
    await mkdir(path.join(mine, 'util'));
    await writeFile(path.join(mine, 'util/io.hpp'), '#pragma once\n');
    const ruN = await diff(
      root,
      '-ruN',
      '--exclude=.git',
      path.basename(repo),
      path.basename(mine),
    );
    const result = await intake(ruN);
    expect(result).toMatchObject({
      ok: true,
      format: 'unified',
      files: [
        { path: 'init.cpp', change: 'modified' },
        { path: 'util/io.hpp', change: 'added' },
      ],
    });

    await cp(path.join(repo, 'wordcount.hpp'), path.join(repo, 'wordcount.hpp.orig'));
    await edit('wordcount.hpp', (t) => t.replace('void init();', 'void init(); // once'));
    const p0 = await diff(repo, '-u', 'wordcount.hpp.orig', 'wordcount.hpp');
    await rm(path.join(repo, 'wordcount.hpp.orig'));
    await expectSameTree(p0);
  });

  it('applies `git diff --no-prefix` at -p0', async () => {
    await edit('wordcount.cpp', (t) =>
      t.replace('#ifdef SOLUTION\n', '#ifdef SOLUTION\n#include <cstdio>\n'),
    );
    await expectSameTree(bin(await git(repo, 'diff', '--no-prefix')));
  });

  it('keeps CRLF line endings and a missing final newline byte for byte', async () => {
    await create('crlf.hpp', '#pragma once\r\nint crlf();\r\n');
    await edit('init.cpp', (t) => `${t}// added with CRLF\r\n`);
    await edit('wordcount.hpp', (t) => t.replace(/\n$/, ''));
    await git(repo, 'add', '-A');
    const patch = await git(repo, 'diff', '--cached');
    expect(patch).toContain('\\ No newline at end of file');
    expect(patch).toContain('+// added with CRLF\r\n');
    const destDir = freshDest();
    const result = await intake(bin(patch), destDir);
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(destDir, 'crlf.hpp'), 'latin1')).toBe(
      '#pragma once\r\nint crlf();\r\n',
    );
    expect(await readTree(destDir)).toEqual(await readTree(repo));
  });

  it('applies a quoted non-ASCII file name', async () => {
    await create('café.hpp', '#pragma once\n');
    await git(repo, 'add', '-A');
    const patch = await git(repo, 'diff', '--cached');
    expect(patch).toContain('"b/caf\\303\\251.hpp"');
    const result = await expectSameTree(bin(patch));
    expect(result.files).toEqual([
      { path: 'café.hpp', change: 'added', additions: 1, deletions: 0 },
    ]);
  });

  it('applies a copy (git diff -C -C) as a new file', async () => {
    const source = await readFile(path.join(repo, 'wordcount.hpp'), 'utf8');
    await create('mine.hpp', source.replace('void init();', 'void init(); // mine'));
    await git(repo, 'add', '-A');
    const patch = await git(repo, 'diff', '--cached', '-C', '-C');
    expect(patch).toContain('copy from wordcount.hpp');
    const result = await expectSameTree(bin(patch));
    expect(result.files).toEqual([
      { path: 'mine.hpp', change: 'added', additions: 1, deletions: 1 },
    ]);
  });

  it('applies into a folder inside another git repository (no discovery of the enclosing repo)', async () => {
    await edit('init.cpp', (t) => `${t}// inside\n`);
    const patch = await git(repo, 'diff');
    const destDir = path.join(repo, 'nested', 'dest');
    const result = await intake(bin(patch), destDir);
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(destDir, 'init.cpp'), 'utf8')).toMatch(/\/\/ inside\n$/);
  });
});

describe('intakePatch rejections with real git output', () => {
  it('does-not-apply: names the file and the hunk, with git’s message', async () => {
    await edit('wordcount.cpp', (t) =>
      t.replace('m.max_load_factor(0.5);', 'm.max_load_factor(0.25);'),
    );
    const patch = (await git(repo, 'diff')).replace(
      ' std::vector<WordCount> mvec;',
      ' std::vector<WordCount> other;',
    );
    const result = await intake(bin(patch));
    expect(result).toMatchObject({ ok: false, reason: 'does-not-apply', file: 'wordcount.cpp' });
    if (result.ok) return;
    expect(result.message).toMatch(
      /^wordcount\.cpp: hunk 1 of 1 \(@@ -\d+,\d+ \+\d+,\d+ @@\) does not apply/,
    );
    expect(result.message).toContain('error: patch failed: wordcount.cpp:');
  });

  it('does-not-apply: says which mail of a series failed', async () => {
    await create('a.hpp', 'one\n');
    await git(repo, 'add', 'a.hpp');
    await git(repo, 'commit', '-qm', 'Add a');
    await edit('a.hpp', () => 'two\n');
    await git(repo, 'commit', '-qam', 'Change a');
    const series = (await git(repo, 'format-patch', '-2', '--stdout')).replace('-one\n', '-uno\n');
    const result = await intake(bin(series));
    expect(result).toMatchObject({ ok: false, reason: 'does-not-apply', file: 'a.hpp' });
    if (!result.ok)
      expect(result.message).toMatch(/^a\.hpp \(mail 2 of 2, "Change a"\): hunk 1 of 1/);
  });

  it('rejects what real git writes for a symlink, a mode change and a binary file', async () => {
    await symlink('/etc/passwd', path.join(repo, 'link.hpp'));
    await git(repo, 'add', '-A');
    expect(await intake(bin(await git(repo, 'diff', '--cached')))).toMatchObject({
      ok: false,
      reason: 'symlink',
      file: 'link.hpp',
    });
    await git(repo, 'rm', '-q', '--cached', 'link.hpp');
    await rm(path.join(repo, 'link.hpp'));

    await chmod(path.join(repo, 'wordcount.cpp'), 0o755);
    expect(await intake(bin(await git(repo, 'diff')))).toMatchObject({
      ok: false,
      reason: 'mode-change',
      file: 'wordcount.cpp',
    });
    await chmod(path.join(repo, 'wordcount.cpp'), 0o644);

    await writeFile(path.join(repo, 'table.hpp'), Buffer.from([0, 1, 2, 255]));
    await git(repo, 'add', '-A');
    for (const args of [['--binary'], []])
      expect(await intake(bin(await git(repo, 'diff', '--cached', ...args)))).toMatchObject({
        ok: false,
        reason: 'binary',
        file: 'table.hpp',
      });
  });

  it('rejects the driver, the build file and the tests', async () => {
    for (const file of ['main.cpp', 'CMakeLists.txt', 'tests/x']) {
      await create(file, 'int main() { return 0; }\n');
      await git(repo, 'add', '-A');
      const destDir = freshDest();
      const result = await intake(bin(await git(repo, 'diff', '--cached')), destDir);
      expect(result).toMatchObject({ ok: false, reason: 'protected-file', file });
      await git(repo, 'rm', '-q', '--cached', file);
      await rm(path.join(repo, file));
    }
  });

  it('rejects a new .txt file', async () => {
    await create('notes.txt', 'fast\n');
    await git(repo, 'add', '-A');
    expect(await intake(bin(await git(repo, 'diff', '--cached')))).toMatchObject({
      ok: false,
      reason: 'not-allowed',
      file: 'notes.txt',
    });
  });

  it('rejects an empty patch (git diff with no changes)', async () => {
    expect(await intake(bin(await git(repo, 'diff')))).toMatchObject({
      ok: false,
      reason: 'empty',
    });
  });
});

describe('applyPatch', () => {
  it('refuses a tree with a symbolic link after applying (defense in depth)', async () => {
    const template = path.join(root, `linked-template-${counter}`);
    await cp(challenge.templateDir, template, { recursive: true });
    await symlink('/etc/hostname', path.join(template, 'sneaky.hpp'));
    await edit('init.cpp', (t) => `${t}// x\n`);
    const result = await applyPatch({
      patchText: bin(await git(repo, 'diff')),
      templateDir: template,
      destDir: freshDest(),
    });
    expect(result).toMatchObject({ ok: false, reason: 'symlink', file: 'sneaky.hpp' });
  });
});
