import { describe, expect, it } from 'vitest';
import { firstDifferences } from '../../runner/judge/output-diff';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('firstDifferences', () => {
  it('is empty for equal outputs', () => {
    expect(firstDifferences(b('a\t2\nb\t1\n'), b('a\t2\nb\t1\n'))).toEqual([]);
  });

  it('names the first differing line with its number', () => {
    expect(firstDifferences(b('a\t3\nb\t2\nc\t1\n'), b('a\t3\nc\t2\nb\t1\n'))).toEqual([
      {
        line: 2,
        expected: 'b\t2',
        got: 'c\t2',
        escaped: true,
        byteOffset: 0,
        expectedBytes: 3,
        gotBytes: 3,
      },
      {
        line: 3,
        expected: 'c\t1',
        got: 'b\t1',
        escaped: true,
        byteOffset: 0,
        expectedBytes: 3,
        gotBytes: 3,
      },
    ]);
  });

  it('shows missing and extra lines as null', () => {
    expect(firstDifferences(b('a\t1\nb\t1\n'), b('a\t1\n'))).toEqual([
      { line: 2, expected: 'b\t1', got: null, escaped: true, expectedBytes: 3 },
    ]);
    expect(firstDifferences(b(''), b('x\t1\n'))).toEqual([
      { line: 1, expected: null, got: 'x\t1', escaped: true, gotBytes: 3 },
    ]);
  });

  it('makes a missing final newline visible', () => {
    expect(firstDifferences(b('a\t1\n'), b('a\t1'))).toEqual([
      {
        line: 1,
        expected: 'a\t1',
        got: 'a\t1 [no newline at end]',
        escaped: true,
        byteOffset: 3,
        expectedBytes: 3,
        gotBytes: 3,
      },
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
    expect(diffs[0]!.line).toBe(1);
    // A window around the first difference (byte 5000), not the shared 5000-byte prefix.
    const first = diffs[0]!;
    expect(first).toMatchObject({ byteOffset: 5000, expectedBytes: 5002, gotBytes: 5003 });
    expect(first.expected!.length).toBeLessThanOrEqual(130);
    expect(first.expected).toBe(`…${'x'.repeat(32)}\t1`);
    expect(first.got).toBe(`…${'x'.repeat(32)}y\t1`);
  });

  it('shows bytes that are not valid UTF-8 as escapes on each side, and a backslash escaped', () => {
    const [d] = firstDifferences(
      Buffer.from([0xc3, 0xa9, 0x80, 0x09, 0x31, 0x0a]), // "é", a stray continuation byte, "\t1"
      Buffer.from([0xc3, 0xa9, 0xff, 0x09, 0x31, 0x0a]),
    );
    expect(d).toMatchObject({ expected: 'é\\x80\t1', got: 'é\\xff\t1', byteOffset: 2 });
    const [slash] = firstDifferences(b('a\\x80\t1\n'), b('a\t1\n'));
    expect(slash!.expected).toBe('a\\\\x80\t1');
  });

  it('never splits a UTF-8 character at the window edge', () => {
    const long = 'é'.repeat(300); // 600 bytes
    const [d] = firstDifferences(b(`${long}a\n`), b(`${long}b\n`));
    expect(d!.byteOffset).toBe(600);
    expect(d!.expected).not.toContain('\\x');
    expect(d!.expected!.endsWith('a')).toBe(true);
  });
});
