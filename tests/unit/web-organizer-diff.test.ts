// The organizer's diff view parser: line kinds and numbers, files touched with their counts, a
// "--- " line inside a hunk read as a removed line, plain diffs, and huge patches cut.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../lib/server/web/organizer-diff';

const GIT_DIFF = `diff --git a/wordcount.cpp b/wordcount.cpp
index 1111111..2222222 100644
--- a/wordcount.cpp
+++ b/wordcount.cpp
@@ -10,4 +10,5 @@ void init() {}
 keep one
--- removed line that looks like a header
+++ added line that looks like a header
+another added
 keep two
diff --git a/fast.hpp b/fast.hpp
new file mode 100644
--- /dev/null
+++ b/fast.hpp
@@ -0,0 +1,2 @@
+#pragma once
+int fast();
`;

describe('parseUnifiedDiff', () => {
  it('classes and numbers every line and sums each file', () => {
    const d = parseUnifiedDiff(GIT_DIFF);
    expect(d.truncated).toBe(false);
    expect(d.files).toEqual([
      { path: 'wordcount.cpp', change: 'modified', additions: 2, deletions: 1 },
      { path: 'fast.hpp', change: 'added', additions: 2, deletions: 0 },
    ]);
    const hunkBody = d.lines.slice(5, 10).map((l) => [l.kind, l.oldLine, l.newLine]);
    expect(hunkBody).toEqual([
      ['ctx', 10, 10],
      ['del', 11, null],
      ['add', null, 11],
      ['add', null, 12],
      ['ctx', 12, 13],
    ]);
    expect(d.lines.slice(0, 5).map((l) => l.kind)).toEqual([
      'file',
      'file',
      'file',
      'file',
      'hunk',
    ]);
    expect(d.lines.at(-1)).toMatchObject({ kind: 'add', newLine: 2, text: '+int fast();' });
  });

  it('reads a plain diff -u and a real contestant patch', () => {
    const plain = parseUnifiedDiff('--- old/a.cpp\n+++ new/a.cpp\n@@ -1 +1 @@\n-x\n+y\n');
    expect(plain.files).toEqual([
      { path: 'new/a.cpp', change: 'modified', additions: 1, deletions: 1 },
    ]);
    const real = parseUnifiedDiff(
      readFileSync('challenges/wordcount/submissions/accepted/fast-hash-table.patch', 'utf8'),
    );
    expect(real.files.length).toBeGreaterThan(0);
    expect(real.files.every((f) => f.additions + f.deletions > 0)).toBe(true);
  });

  it('cuts a huge patch and long lines', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `+line ${i}`);
    const d = parseUnifiedDiff(
      `--- a/x.cpp\n+++ b/x.cpp\n@@ -0,0 +1,10001 @@\n${lines.join('\n')}\n+${'y'.repeat(5000)}\n`,
      100,
    );
    expect(d.lines).toHaveLength(100);
    expect(d.totalLines).toBe(10_004);
    expect(d.truncated).toBe(true);
    // The files summary still covers the whole patch.
    expect(d.files[0]?.additions).toBe(10_001);
    const long = parseUnifiedDiff(`+${'y'.repeat(5000)}\n`);
    expect(long.lines[0]!.text.length).toBeLessThan(1010);
  });
});
