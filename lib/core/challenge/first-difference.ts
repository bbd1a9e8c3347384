// Where an output line first differs from the expected one: the byte offset (UTF-8, from 0) and
// both lines' lengths in bytes, and a window of each line around that point, so that two long
// lines sharing a 200-character prefix do not print the same prefix twice. Pure and shared by the
// judge (which locates it in the raw bytes), the web page and the CLI's text report, so all three
// say the same thing about the same mismatch.
import type { DiffLine } from '../../../contracts';

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
export function describeFirstDifference(
  d: Pick<FirstDifference, 'byteOffset' | 'expectedBytes' | 'gotBytes'>,
): string {
  return `first difference at byte ${d.byteOffset} (expected ${d.expectedBytes} bytes, got ${d.gotBytes})`;
}

/**
 * Output bytes as text that loses nothing: valid UTF-8 as itself, every byte of an invalid
 * sequence as `\xNN`, and a backslash as `\\` so an escape cannot be mistaken for output.
 */
export function showBytes(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const length = validSequenceLength(bytes, i);
    if (length === 0) {
      out += `\\x${bytes[i]!.toString(16).padStart(2, '0')}`;
      i++;
      continue;
    }
    const text = Buffer.from(bytes.subarray(i, i + length)).toString('utf8');
    out += text === '\\' ? '\\\\' : text;
    i += length;
  }
  return out;
}

/** The length of the valid UTF-8 sequence at `i` (no overlongs, surrogates or > U+10FFFF), else 0. */
function validSequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const x = b[i + k];
    return x !== undefined && x >= lo && x <= hi;
  };
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/**
 * What to show for one differing line: the judge's byte-located window when the result has it,
 * else (results of older judges) the window and figures computed from the text.
 */
export function lineDifference(d: DiffLine): {
  expected: string | null;
  got: string | null;
  description: string | null;
} {
  if (d.byteOffset !== undefined && d.expectedBytes !== undefined && d.gotBytes !== undefined)
    return {
      expected: d.expected,
      got: d.got,
      description: describeFirstDifference({
        byteOffset: d.byteOffset,
        expectedBytes: d.expectedBytes,
        gotBytes: d.gotBytes,
      }),
    };
  const at = firstDifference(d.expected, d.got);
  return at
    ? { expected: at.expectedExcerpt, got: at.gotExcerpt, description: describeFirstDifference(at) }
    : { expected: d.expected, got: d.got, description: null };
}
