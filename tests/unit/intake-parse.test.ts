// Parsing the three patch formats contestants send, from fixtures written by real git and diff.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntakeRejectionError, parsePatch, type ParsedPatch } from '../../lib/core/intake';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/patches');
const TEMPLATE = ['init.cpp', 'wordcount.cpp', 'wordcount.hpp'];

function fixture(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, name));
}

function parse(text: Buffer | string): ParsedPatch {
  return parsePatch(text, { knownFiles: TEMPLATE });
}

function parseError(text: Buffer | string): IntakeRejectionError {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof IntakeRejectionError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

function summary(patch: ParsedPatch) {
  return patch.files.map((f) => ({ kind: f.kind, oldPath: f.oldPath, newPath: f.newPath }));
}

describe('parsePatch: git diff', () => {
  it('reads modifications, new files in sub-folders and empty new files', () => {
    const patch = parse(fixture('git-diff.patch'));
    expect(patch.format).toBe('git-diff');
    expect(patch.stripLevel).toBe(1);
    expect(patch.mails).toHaveLength(1);
    expect(summary(patch)).toEqual([
      { kind: 'add', oldPath: null, newPath: 'empty.hpp' },
      { kind: 'modify', oldPath: 'init.cpp', newPath: 'init.cpp' },
      { kind: 'add', oldPath: null, newPath: 'lib/fast.hpp' },
    ]);
    const init = patch.files[1]!;
    expect(init.hunks).toHaveLength(1);
    expect(init.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 4, newStart: 1, newLines: 6 });
    expect(init.hunks[0]!.lines.map((l) => l.op)).toEqual([
      'context',
      'context',
      'context',
      'remove',
      'add',
      'add',
      'add',
    ]);
    expect(patch.files[0]).toMatchObject({ newMode: '100644', binary: false, hunks: [] });
  });

  it('reads renames, whose names carry no a/ b/ prefix', () => {
    const patch = parse(fixture('rename.patch'));
    expect(summary(patch)).toEqual([
      { kind: 'rename', oldPath: 'lib/fast.hpp', newPath: 'lib/faster.hpp' },
    ]);
  });

  it('unquotes git paths with octal escapes into UTF-8', () => {
    const patch = parse(fixture('quoted-path.patch'));
    expect(patch.files[0]).toMatchObject({ kind: 'add', newPath: 'café.hpp' });
  });

  it('reads deleted files and mode lines', () => {
    const patch = parse(
      'diff --git a/old.hpp b/old.hpp\ndeleted file mode 100644\nindex 587be6b..0000000\n--- a/old.hpp\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
    );
    expect(summary(patch)).toEqual([{ kind: 'delete', oldPath: 'old.hpp', newPath: null }]);
    expect(parse(fixture('mode-change.patch')).files[0]).toMatchObject({
      kind: 'modify',
      oldMode: '100644',
      newMode: '100755',
    });
    expect(parse(fixture('symlink.patch')).files[0]).toMatchObject({ newMode: '120000' });
    expect(parse(fixture('submodule.patch')).files[0]).toMatchObject({ newMode: '160000' });
  });

  it('marks binary changes in both of git’s spellings', () => {
    expect(parse(fixture('binary-git.patch')).files[0]).toMatchObject({
      newPath: 'blob.hpp',
      binary: true,
    });
    expect(parse(fixture('binary-files-differ.patch')).files[0]).toMatchObject({
      newPath: 'blob.hpp',
      binary: true,
    });
  });

  it('records "\\ No newline at end of file" on the line it follows', () => {
    const patch = parse(fixture('symlink.patch'));
    expect(patch.files[0]!.hunks[0]!.lines).toEqual([
      { op: 'add', text: '/etc/passwd', noNewlineAtEnd: true },
    ]);
  });

  it('keeps the CR of CRLF hunk lines, and hands git the exact bytes', () => {
    const text =
      'diff --git a/init.cpp b/init.cpp\n--- a/init.cpp\n+++ b/init.cpp\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n';
    const patch = parse(text);
    expect(patch.files[0]!.hunks[0]!.lines.map((l) => l.text)).toEqual(['a\r', 'b\r', 'c\r']);
    expect(patch.mails[0]!.applyText.equals(Buffer.from(text))).toBe(true);
  });

  it('keeps non-UTF-8 bytes of hunk lines intact for git', () => {
    const text = Buffer.concat([
      Buffer.from(
        'diff --git a/init.cpp b/init.cpp\n--- a/init.cpp\n+++ b/init.cpp\n@@ -1 +1 @@\n-a\n+',
      ),
      Buffer.from([0xe9, 0xff, 0x0a]),
    ]);
    expect(parse(text).mails[0]!.applyText.equals(text)).toBe(true);
  });

  it('detects -p0 for `git diff --no-prefix`', () => {
    const patch = parse(
      'diff --git init.cpp init.cpp\nindex 1..2 100644\n--- init.cpp\n+++ init.cpp\n@@ -1 +1 @@\n-a\n+b\n',
    );
    expect(patch.stripLevel).toBe(0);
    expect(summary(patch)).toEqual([{ kind: 'modify', oldPath: 'init.cpp', newPath: 'init.cpp' }]);
  });

  it('hands git only the diff sections, not the text around them', () => {
    const section =
      'diff --git a/init.cpp b/init.cpp\n--- a/init.cpp\n+++ b/init.cpp\n@@ -1 +1 @@\n-a\n+b\n';
    const patch = parse(`commit 123\nAuthor: me\n\n    faster\n\n${section}trailing words\n`);
    expect(patch.mails[0]!.applyText.toString()).toBe(section);
  });

  it('adds the final newline a truncated copy-paste lost', () => {
    const patch = parse('--- a/init.cpp\n+++ b/init.cpp\n@@ -1 +1 @@\n-a\n+b');
    expect(patch.mails[0]!.applyText.toString()).toMatch(/\+b\n$/);
  });
});

describe('parsePatch: git format-patch series', () => {
  it('splits mails in order, with their subjects, and drops the signature', () => {
    const patch = parse(fixture('format-patch-series.patch'));
    expect(patch.format).toBe('format-patch');
    expect(patch.mails.map((m) => m.subject)).toEqual(['Add a counter', 'Widen the counter']);
    expect(
      patch.mails.map((m) => m.files.map((f) => `${f.kind} ${f.newPath} (mail ${f.mail})`)),
    ).toEqual([['add counter.hpp (mail 1)'], ['modify counter.hpp (mail 2)']]);
    for (const mail of patch.mails) {
      const text = mail.applyText.toString();
      expect(text.startsWith('diff --git')).toBe(true);
      expect(text).not.toMatch(/^-- $/m);
      expect(text).not.toContain('Subject:');
    }
  });

  it('ignores a diff quoted in the commit message, as git am does', () => {
    const mail = [
      'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001',
      'From: A <a@example.com>',
      'Subject: [PATCH] Faster init',
      '',
      'I did not do this:',
      'diff --git a/main.cpp b/main.cpp',
      '--- a/main.cpp',
      '+++ b/main.cpp',
      '@@ -1 +1 @@',
      '-a',
      '+b',
      '---',
      ' init.cpp | 2 +-',
      '',
      'diff --git a/init.cpp b/init.cpp',
      '--- a/init.cpp',
      '+++ b/init.cpp',
      '@@ -1 +1 @@',
      '-a',
      '+b',
      '-- ',
      '2.39.5',
      '',
    ].join('\n');
    const patch = parse(mail);
    expect(summary(patch)).toEqual([{ kind: 'modify', oldPath: 'init.cpp', newPath: 'init.cpp' }]);
    expect(patch.mails[0]!.applyText.toString()).not.toContain('main.cpp');
  });

  it('skips a cover letter', () => {
    const cover = [
      'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
      'From: A <a@example.com>',
      'Subject: [PATCH 0/2] *** SUBJECT HERE ***',
      '',
      '*** BLURB HERE ***',
      '',
    ].join('\n');
    const patch = parse(cover + fixture('format-patch-series.patch').toString());
    expect(patch.mails.map((m) => m.index)).toEqual([1, 2]);
  });

  it('rejects an encoded mail', () => {
    const error = parseError(
      'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\nContent-Transfer-Encoding: base64\n\nZGlmZg==\n',
    );
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/base64-encoded/);
  });
});

describe('parsePatch: plain unified diffs', () => {
  it('reads `diff -ruN old new` with timestamps, new files by their epoch date, at -p1', () => {
    const patch = parse(fixture('diff-ruN.patch'));
    expect(patch.format).toBe('unified');
    expect(patch.stripLevel).toBe(1);
    expect(summary(patch)).toEqual([
      { kind: 'modify', oldPath: 'init.cpp', newPath: 'init.cpp' },
      { kind: 'add', oldPath: null, newPath: 'util/io.hpp' },
    ]);
  });

  it('reads `diff -u x.orig x` at -p0, naming the file as git does', () => {
    const patch = parse(fixture('diff-u-p0.patch'));
    expect(patch.stripLevel).toBe(0);
    expect(summary(patch)).toEqual([
      { kind: 'modify', oldPath: 'wordcount.hpp', newPath: 'wordcount.hpp' },
    ]);
  });

  it('reads /dev/null sides as added and deleted files', () => {
    const patch = parse(
      '--- /dev/null\n+++ b/n.hpp\n@@ -0,0 +1 @@\n+x\n--- a/o.hpp\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
    );
    expect(summary(patch)).toEqual([
      { kind: 'add', oldPath: null, newPath: 'n.hpp' },
      { kind: 'delete', oldPath: 'o.hpp', newPath: null },
    ]);
  });

  it('prefers -p1 (a/ b/) when both levels make sense', () => {
    const patch = parse('--- a/init.cpp\n+++ b/init.cpp\n@@ -1 +1 @@\n-a\n+b\n');
    expect(patch.stripLevel).toBe(1);
    expect(patch.files[0]!.newPath).toBe('init.cpp');
  });

  it('chooses -p0 when that names template files and -p1 does not', () => {
    const patch = parsePatch('--- sub/x.hpp\n+++ sub/x.hpp\n@@ -1 +1 @@\n-a\n+b\n', {
      knownFiles: ['sub/x.hpp'],
    });
    expect(patch.stripLevel).toBe(0);
    expect(patch.files[0]!.newPath).toBe('sub/x.hpp');
  });
});

describe('parsePatch: what is not a patch', () => {
  it.each([
    ['', 'empty'],
    ['  \n\n\t\n', 'empty'],
    ['I made it faster, trust me.\n', 'not-a-patch'],
    ['*** a.cpp\n--- b.cpp\n***************\n*** 1 ****\n', 'malformed'],
  ])('%j is rejected as %s', (text, reason) => {
    expect(parseError(text).reason).toBe(reason);
  });

  it('says an empty patch changes nothing: the solution is still the baseline', () => {
    expect(parseError('\n').message).toMatch(/nothing changed.*still the template's copy/);
  });

  it('rejects a hunk with fewer lines than its header counts, naming the file', () => {
    const error = parseError(
      'diff --git a/init.cpp b/init.cpp\n--- a/init.cpp\n+++ b/init.cpp\n@@ -1,3 +1,3 @@\n a\n-b\n+c\nnot a hunk line\n',
    );
    expect(error.reason).toBe('malformed');
    expect(error.file).toBe('init.cpp');
    expect(error.message).toMatch(/^init\.cpp: .*fewer lines than its header/);
  });

  it('rejects a hunk with more lines than its header counts', () => {
    const error = parseError(
      'diff --git a/init.cpp b/init.cpp\n--- a/init.cpp\n+++ b/init.cpp\n@@ -1 +1 @@\n-a\n+b\n+c\n',
    );
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/init\.cpp: .*more lines than its @@ header/);
  });

  it('rejects a truncated patch', () => {
    const error = parseError(
      'diff --git a/init.cpp b/init.cpp\n--- a/init.cpp\n+++ b/init.cpp\n@@ -1,5 +1,5 @@\n a\n-b\n',
    );
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/init\.cpp: the patch ends inside the hunk/);
  });

  it('rejects a patch whose headers were converted to CRLF', () => {
    const text =
      'diff --git a/init.cpp b/init.cpp\n--- a/init.cpp\n+++ b/init.cpp\n@@ -1 +1 @@\n-a\n+b\n';
    const error = parseError(text.replace(/\n/g, '\r\n'));
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/CRLF/);
  });

  it('rejects headers whose names disagree, as git does', () => {
    const error = parseError(
      'diff --git a/init.cpp b/init.cpp\n--- a/main.cpp\n+++ b/main.cpp\n@@ -1 +1 @@\n-a\n+b\n',
    );
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/inconsistent/);
  });

  it('rejects overlong header lines quickly (the name regexps stay linear)', () => {
    const started = Date.now();
    const spaces = ' '.repeat(200_000);
    expect(parseError(`diff --git a/x${spaces}b/x\n`).reason).toBe('malformed');
    expect(parseError(`--- a/x${spaces}\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n`).reason).toBe('malformed');
    expect(parseError(`Files ${'x and '.repeat(50_000)}\n`).reason).toBe('not-a-patch');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('rejects a file name that is not UTF-8', () => {
    const error = parseError('diff --git "a/\\377.hpp" "b/\\377.hpp"\nnew file mode 100644\n');
    expect(error.reason).toBe('unsafe-path');
  });
});
