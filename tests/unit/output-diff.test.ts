import { describe, expect, it } from 'vitest';
import { firstDifferences } from '../../runner/judge/output-diff';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('firstDifferences', () => {
  it('is empty for equal outputs', () => {
    expect(firstDifferences(b('a\t2\nb\t1\n'), b('a\t2\nb\t1\n'))).toEqual([]);
  });

  it('names the first differing line with its number', () => {
    expect(firstDifferences(b('a\t3\nb\t2\nc\t1\n'), b('a\t3\nc\t2\nb\t1\n'))).toEqual([
      { line: 2, expected: 'b\t2', got: 'c\t2' },
      { line: 3, expected: 'c\t1', got: 'b\t1' },
    ]);
  });

  it('shows missing and extra lines as null', () => {
    expect(firstDifferences(b('a\t1\nb\t1\n'), b('a\t1\n'))).toEqual([
      { line: 2, expected: 'b\t1', got: null },
    ]);
    expect(firstDifferences(b(''), b('x\t1\n'))).toEqual([
      { line: 1, expected: null, got: 'x\t1' },
    ]);
  });

  it('makes a missing final newline visible', () => {
    expect(firstDifferences(b('a\t1\n'), b('a\t1'))).toEqual([
      { line: 1, expected: 'a\t1', got: 'a\t1 [no newline at end]' },
    ]);
  });

  it('caps the number of lines and the length of each', () => {
    const long = 'x'.repeat(5000);
    const diffs = firstDifferences(
      b(`${long}\t1\n1\n2\n3\n4\n`),
      b(`${long}y\t1\n5\n6\n7\n8\n`),
      3,
    );
    expect(diffs).toHaveLength(3);
    expect(diffs[0]!.expected!.length).toBeLessThanOrEqual(201);
    expect(diffs[0]!.line).toBe(1);
  });
});
