// Every rejection reason of intake, decided without touching the disk, with the wordcount manifest's rules.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import {
  INTAKE_REJECTION_REASONS,
  inspectPatch,
  intakeRejectionReasonSchema,
  type IntakeRejection,
  type IntakeRejectionReason,
  type IntakeRules,
} from '../../lib/core/intake';
import { intakePatch } from '../../runner/intake';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/patches');
const TEMPLATE = ['init.cpp', 'wordcount.cpp', 'wordcount.hpp'];

let manifest: Manifest;
let rules: IntakeRules & { patchBytes: number };

beforeAll(async () => {
  manifest = (await loadChallenge('wordcount')).manifest;
  rules = {
    patchBytes: manifest.limits.patchBytes,
    editableFiles: manifest.editableFiles,
    allowedNewFiles: manifest.allowedNewFiles,
    protectedPaths: manifest.protectedPaths,
    templateFiles: TEMPLATE,
    harnessFiles: ['main.cpp', 'CMakeLists.txt'],
  };
});

/** A git diff adding `file` (a/ b/ prefixes added here unless the name is given raw). */
function addFile(file: string, mode = '100644', body = '#pragma once'): string {
  return `diff --git a/${file} b/${file}\nnew file mode ${mode}\n--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+${body}\n`;
}

function modifyFile(file: string): string {
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-a\n+b\n`;
}

function deleteFile(file: string): string {
  return `diff --git a/${file} b/${file}\ndeleted file mode 100644\n--- a/${file}\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n`;
}

function renameFile(from: string, to: string): string {
  return `diff --git a/${from} b/${to}\nsimilarity index 100%\nrename from ${from}\nrename to ${to}\n`;
}

function mail(n: number, of: number, body: string): string {
  return `From ${String(n).repeat(40)} Mon Sep 17 00:00:00 2001\nFrom: C <c@example.com>\nSubject: [PATCH ${n}/${of}] step ${n}\n\n---\n\n${body}-- \n2.39.5\n\n`;
}

function rejection(text: string | Buffer, overrides: Partial<typeof rules> = {}): IntakeRejection {
  const result = inspectPatch(text, { ...rules, ...overrides });
  if (result.ok) throw new Error(`expected a rejection, got ${JSON.stringify(result.validated)}`);
  return result;
}

function accepted(text: string | Buffer) {
  const result = inspectPatch(text, rules);
  if (!result.ok) throw new Error(`expected acceptance, got ${result.reason}: ${result.message}`);
  return result.validated;
}

function expectRejected(
  result: IntakeRejection,
  reason: IntakeRejectionReason,
  file: string,
  message?: RegExp,
): void {
  expect(result.reason).toBe(reason);
  expect(result.file).toBe(file);
  // Names with backslashes or control characters are shown quoted and escaped.
  expect(result.message.includes(file) || result.message.includes(JSON.stringify(file))).toBe(true);
  if (message) expect(result.message).toMatch(message);
}

describe('the reason codes', () => {
  it('are a closed set with a schema', () => {
    expect(new Set(INTAKE_REJECTION_REASONS).size).toBe(INTAKE_REJECTION_REASONS.length);
    expect(intakeRejectionReasonSchema.safeParse('does-not-apply').success).toBe(true);
    expect(intakeRejectionReasonSchema.safeParse('timeout').success).toBe(false);
  });
});

describe('inspectPatch: accepted patches', () => {
  it('accepts editable files and a new header in a sub-folder, and sums the changes', () => {
    const result = accepted(modifyFile('wordcount.cpp') + addFile('lib/fast/hash.hpp'));
    expect(result.files).toEqual([
      { path: 'wordcount.cpp', change: 'modified', additions: 1, deletions: 1 },
      { path: 'lib/fast/hash.hpp', change: 'added', additions: 1, deletions: 0 },
    ]);
    expect(result.finalFiles).toEqual([
      'init.cpp',
      'lib/fast/hash.hpp',
      'wordcount.cpp',
      'wordcount.hpp',
    ]);
  });

  it('follows a series in order: added, modified, renamed, deleted', () => {
    const series =
      mail(1, 4, addFile('a.hpp') + addFile('gone.hpp')) +
      mail(2, 4, modifyFile('a.hpp')) +
      mail(3, 4, renameFile('a.hpp', 'util/b.hpp')) +
      mail(4, 4, deleteFile('gone.hpp'));
    const result = accepted(series);
    expect(result.files).toEqual([
      { path: 'util/b.hpp', change: 'added', additions: 2, deletions: 1 },
    ]);
    expect(result.finalFiles).toEqual(['init.cpp', 'util/b.hpp', 'wordcount.cpp', 'wordcount.hpp']);
  });

  it('accepts the non-ASCII name of a quoted git path', () => {
    const result = accepted(readFileSync(path.join(FIXTURES, 'quoted-path.patch')));
    expect(result.files[0]).toMatchObject({ path: 'café.hpp', change: 'added' });
  });
});

describe('inspectPatch: every rejection names the file and the reason', () => {
  it('too-large, before parsing anything', () => {
    const result = rejection('not even a patch '.repeat(100), { patchBytes: 1024 });
    expect(result.reason).toBe('too-large');
    expect(result.message).toMatch(/1\.7KiB \(1700 bytes\); the limit is 1KiB/);
  });

  it('empty and not-a-patch', () => {
    expect(rejection('').reason).toBe('empty');
    expect(rejection('\n \n').reason).toBe('empty');
    expect(rejection('please apply my speedup\n').reason).toBe('not-a-patch');
  });

  it('binary: GIT binary patch, Binary files … differ, NUL bytes in a hunk', () => {
    for (const name of ['binary-git.patch', 'binary-files-differ.patch'])
      expectRejected(
        rejection(readFileSync(path.join(FIXTURES, name))),
        'binary',
        'blob.hpp',
        /binary changes are not accepted/,
      );
    expectRejected(rejection(addFile('zero.hpp', '100644', 'a\0b')), 'binary', 'zero.hpp');
  });

  it('symlink (mode 120000), new or modified', () => {
    expectRejected(
      rejection(readFileSync(path.join(FIXTURES, 'symlink.patch'))),
      'symlink',
      'link.hpp',
      /symbolic links/,
    );
    const modifiedLink =
      'diff --git a/link.hpp b/link.hpp\nindex 1..2 120000\n--- a/link.hpp\n+++ b/link.hpp\n@@ -1 +1 @@\n-/a\n\\ No newline at end of file\n+/etc/shadow\n\\ No newline at end of file\n';
    expectRejected(rejection(modifiedLink), 'symlink', 'link.hpp');
  });

  it('submodule (mode 160000)', () => {
    expectRejected(
      rejection(readFileSync(path.join(FIXTURES, 'submodule.patch'))),
      'submodule',
      'vendor/fastlib',
    );
  });

  it('mode-change: old mode/new mode, or an executable new file', () => {
    expectRejected(
      rejection(readFileSync(path.join(FIXTURES, 'mode-change.patch'))),
      'mode-change',
      'wordcount.cpp',
      /from 100644 to 100755/,
    );
    expectRejected(rejection(addFile('run.hpp', '100755')), 'mode-change', 'run.hpp', /100755/);
  });

  it.each([
    ['a/../x.hpp', '../x.hpp'],
    ['a/../../x.hpp', '../../x.hpp'],
    ['/etc/passwd', '/etc/passwd'],
  ])('unsafe-path: %s in ---/+++ lines', (raw, shown) => {
    const text = `--- /dev/null\n+++ ${raw}\n@@ -0,0 +1 @@\n+x\n`;
    const result = rejection(text);
    expect(result.reason).toBe('unsafe-path');
    expect(result.message).toContain(shown);
  });

  it('unsafe-path: ../ in a git header', () => {
    const result = rejection(addFile('../outside.hpp'));
    expect(result.reason).toBe('unsafe-path');
    expect(result.message).toMatch(/\.\.\/outside\.hpp: .*"\.\."/);
  });

  it.each([
    ['.git/hooks/pre-commit.cpp', /\.git/],
    ['sub/.GIT/config.hpp', /\.git/],
    ['sub\\x.hpp', /backslash/],
    ['con.hpp', /device name/],
    ['lib/aux.h', /device name/],
    ['x/a:b.hpp', /Windows forbids/],
    ['c:/x.hpp', /absolute/],
    ['trailing./x.hpp', /ends with a dot/],
    [`${'d/'.repeat(100)}x.hpp`, /longer than/],
  ])('unsafe-path: %s', (file, message) => {
    expectRejected(rejection(addFile(file)), 'unsafe-path', file, message);
  });

  it('unsafe-path: control characters and NUL in quoted names, shown escaped', () => {
    const tab = rejection('diff --git "a/x\\ty.hpp" "b/x\\ty.hpp"\nnew file mode 100644\n');
    expect(tab.reason).toBe('unsafe-path');
    expect(tab.file).toBe('x\ty.hpp');
    expect(tab.message).toContain('"x\\ty.hpp"');
    expect(tab.message).toMatch(/control character/);
    const nul = rejection('diff --git "a/x\\000.hpp" "b/x\\000.hpp"\nnew file mode 100644\n');
    expect(nul.reason).toBe('unsafe-path');
  });

  it('unsafe-path: a new name that differs from a template file only in case', () => {
    expectRejected(
      rejection(addFile('WordCount.hpp')),
      'unsafe-path',
      'WordCount.hpp',
      /wordcount\.hpp only in letter case/,
    );
  });

  it.each([
    ['main.cpp', modifyFile('main.cpp')],
    ['CMakeLists.txt', modifyFile('CMakeLists.txt')],
    ['sub/CMakeLists.txt', addFile('sub/CMakeLists.txt')],
    ['tests/x', addFile('tests/x')],
    ['tests/edge.cpp', addFile('tests/edge.cpp')],
    ['toolchain.cmake', addFile('toolchain.cmake')],
    ['MAIN.CPP', addFile('MAIN.CPP')],
    ['main.cpp/inner.hpp', addFile('main.cpp/inner.hpp')],
  ])('protected-file: %s', (file, text) => {
    expectRejected(rejection(text), 'protected-file', file, /belongs to the judge/);
  });

  it('protected-file: a harness file even when protectedPaths forgets it', () => {
    expectRejected(
      rejection(addFile('driver.hpp'), { harnessFiles: ['driver.hpp'] }),
      'protected-file',
      'driver.hpp',
      /a harness file/,
    );
  });

  it('protected-file: a template file that is not editable', () => {
    expectRejected(
      rejection(modifyFile('README.md'), { templateFiles: [...TEMPLATE, 'README.md'] }),
      'protected-file',
      'README.md',
      /only wordcount\.cpp, wordcount\.hpp, init\.cpp are editable/,
    );
  });

  it.each([
    ['notes.txt', addFile('notes.txt')],
    ['Makefile', addFile('Makefile')],
    ['docs/README.md', modifyFile('docs/README.md')],
  ])('not-allowed: %s', (file, text) => {
    expectRejected(rejection(text), 'not-allowed', file, /not a new file a patch may add/);
  });

  it('not-allowed: renaming a new file to a disallowed name', () => {
    const series = mail(1, 2, addFile('x.hpp')) + mail(2, 2, renameFile('x.hpp', 'x.txt'));
    expectRejected(rejection(series), 'not-allowed', 'x.txt', /\(mail 2\)/);
  });

  it('protected-file: renaming a new file onto the driver', () => {
    const series = mail(1, 2, addFile('x.cpp')) + mail(2, 2, renameFile('x.cpp', 'main.cpp'));
    expectRejected(rejection(series), 'protected-file', 'main.cpp');
  });

  it('deletes-required-file: deleting or renaming away an editable file', () => {
    expectRejected(
      rejection(deleteFile('init.cpp')),
      'deletes-required-file',
      'init.cpp',
      /must stay/,
    );
    expectRejected(
      rejection(renameFile('wordcount.cpp', 'solution.cpp')),
      'deletes-required-file',
      'wordcount.cpp',
      /renames away/,
    );
  });

  it('malformed: a hunk count that does not add up', () => {
    const result = rejection(
      'diff --git a/init.cpp b/init.cpp\n--- a/init.cpp\n+++ b/init.cpp\n@@ -1,2 +1,2 @@\n-a\n+b\n+c\n',
    );
    expectRejected(result, 'malformed', 'init.cpp');
  });

  it('reports the first offending file in patch order', () => {
    const result = rejection(
      modifyFile('init.cpp') + addFile('notes.txt') + modifyFile('main.cpp'),
    );
    expect(result).toMatchObject({ reason: 'not-allowed', file: 'notes.txt' });
  });
});

describe('intakePatch', () => {
  it('checks the size before anything else (even before reading the template)', async () => {
    const result = await intakePatch({
      patchText: Buffer.alloc(2048, 'x'),
      challenge: {
        manifest: { ...manifest, limits: { ...manifest.limits, patchBytes: 1024 } },
        templateDir: '/nonexistent/template',
      },
      destDir: '/nonexistent/dest',
    });
    expect(result).toMatchObject({ ok: false, reason: 'too-large' });
  });
});
