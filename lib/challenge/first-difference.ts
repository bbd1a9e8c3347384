// Where an output line first differs from the expected one: the byte offset (UTF-8, from 0) and
// both lines' lengths in bytes, and a window of each line around that point, so that two long
// lines sharing a 200-character prefix do not print the same prefix twice. Pure and shared by the
// web page and the CLI's text report, so both say the same thing about the same mismatch.

export interface FirstDifference {
  /** 0-based byte offset of the first differing byte; the shorter length when one is a prefix. */
  byteOffset: number;
  expectedBytes: number;
  gotBytes: number;
  /** The window of each line around the difference ("…" where cut). */
  expectedExcerpt: string;
  gotExcerpt: string;
}

const encoder = new TextEncoder();

/** Characters of context kept before the difference, and the window's total length. */
const BEFORE = 24;
const WINDOW = 80;

function excerpt(text: string, at: number): string {
  if (text.length <= WINDOW) return text;
  const from = Math.max(0, at - BEFORE);
  const to = Math.min(text.length, from + WINDOW);
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}

/** Null when either line is missing (one output is longer) or the lines are equal. */
export function firstDifference(
  expected: string | null,
  got: string | null,
): FirstDifference | null {
  if (expected === null || got === null || expected === got) return null;
  // The first differing UTF-16 position, stepped back off a surrogate half so no char is split.
  let at = 0;
  while (at < expected.length && at < got.length && expected[at] === got[at]) at++;
  if (at > 0 && /[\udc00-\udfff]/.test(expected[at] ?? got[at] ?? '')) at--;
  return {
    byteOffset: encoder.encode(expected.slice(0, at)).length,
    expectedBytes: encoder.encode(expected).length,
    gotBytes: encoder.encode(got).length,
    expectedExcerpt: excerpt(expected, at),
    gotExcerpt: excerpt(got, at),
  };
}

/** "first difference at byte 201 (expected 250 bytes, got 249)". */
export function describeFirstDifference(d: FirstDifference): string {
  return `first difference at byte ${d.byteOffset} (expected ${d.expectedBytes} bytes, got ${d.gotBytes})`;
}
