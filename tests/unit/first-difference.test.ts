import { describe, expect, it } from 'vitest';
import {
  describeFirstDifference,
  firstDifference,
} from '../../lib/core/challenge/first-difference';

describe('firstDifference', () => {
  it('locates the first differing byte of two long words and shows the part that differs', () => {
    const expected = `${'x'.repeat(200)}a\t1`;
    const got = `${'x'.repeat(200)}b\t1`;
    const d = firstDifference(expected, got)!;
    expect(d).toMatchObject({ byteOffset: 200, expectedBytes: 203, gotBytes: 203 });
    expect(d.expectedExcerpt).toBe(`…${'x'.repeat(24)}a\t1`);
    expect(d.gotExcerpt).toBe(`…${'x'.repeat(24)}b\t1`);
    expect(describeFirstDifference(d)).toBe(
      'first difference at byte 200 (expected 203 bytes, got 203)',
    );
  });

  it('counts bytes, not characters, and handles a line that is a prefix of the other', () => {
    expect(firstDifference('héllo\t2', 'héllo\t23')).toMatchObject({
      byteOffset: 8,
      expectedBytes: 8,
      gotBytes: 9,
    });
    expect(firstDifference('a\t1', 'a\t1')).toBeNull();
    expect(firstDifference('a\t1', null)).toBeNull();
  });
});
