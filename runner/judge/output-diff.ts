// The first lines where a run's output differs from the expected output, for a WRONG_ANSWER a
// contestant can act on: each located in bytes (offset of the first differing byte, both lines'
// lengths), shown as text with invalid UTF-8 bytes escaped (lib/core/challenge/first-difference.ts
// showBytes), and a long line cut to a window around its first difference.
import type { DiffLine } from '../../contracts';
import { showBytes } from '../../lib/core/challenge/first-difference';

/** Lines up to this many bytes are shown whole; longer ones as a window of WINDOW bytes. */
const WHOLE_LINE_BYTES = 200;
const WINDOW = 120;
/** Bytes of context kept before the first difference in a window. */
const BEFORE = 32;

interface RawLine {
  /** The line's bytes without its newline; null past the end of the output. */
  bytes: Buffer | null;
  /** The last line of an output without a final newline. */
  unterminated: boolean;
  next: number;
}

function lineAt(buf: Buffer, start: number): RawLine {
  if (start >= buf.length) return { bytes: null, unterminated: false, next: start };
  const end = buf.indexOf(0x0a, start);
  const stop = end < 0 ? buf.length : end;
  return { bytes: buf.subarray(start, stop), unterminated: end < 0, next: stop + 1 };
}

/** Backs `at` up to the start of the UTF-8 character it falls in (never splits a character). */
function charStart(bytes: Buffer, at: number): number {
  let i = Math.min(at, bytes.length);
  for (let back = 0; back < 3 && i > 0 && ((bytes[i] ?? 0) & 0xc0) === 0x80; back++) i--;
  return i;
}

function shown(line: RawLine, from: number): string | null {
  if (!line.bytes) return null;
  const { bytes } = line;
  let text: string;
  if (bytes.length <= WHOLE_LINE_BYTES) text = showBytes(bytes);
  else {
    const start = charStart(bytes, from);
    const stop = charStart(bytes, start + WINDOW);
    text = `${start > 0 ? '…' : ''}${showBytes(bytes.subarray(start, stop))}${stop < bytes.length ? '…' : ''}`;
  }
  // A missing final newline is a difference too: mark it so the two lines do not look equal.
  return line.unterminated ? `${text} [no newline at end]` : text;
}

function commonPrefix(a: Buffer, b: Buffer): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}

function diffLine(line: number, a: RawLine, b: RawLine): DiffLine {
  if (!a.bytes || !b.bytes)
    return {
      line,
      expected: shown(a, 0),
      got: shown(b, 0),
      escaped: true,
      expectedBytes: a.bytes?.length,
      gotBytes: b.bytes?.length,
    };
  const at = commonPrefix(a.bytes, b.bytes);
  const from = Math.max(0, charStart(a.bytes, at) - BEFORE);
  return {
    line,
    expected: shown(a, from),
    got: shown(b, from),
    escaped: true,
    byteOffset: at,
    expectedBytes: a.bytes.length,
    gotBytes: b.bytes.length,
  };
}

/** Up to `max` differing lines, starting at the first difference (1-based line numbers). */
export function firstDifferences(expected: Buffer, got: Buffer, max = 3): DiffLine[] {
  // Skip the common prefix quickly, then back up to the start of its line.
  const same = commonPrefix(expected, got);
  if (same === expected.length && same === got.length) return [];
  const lineStart = same === 0 ? 0 : expected.lastIndexOf(0x0a, same - 1) + 1;
  let line = 1;
  for (let i = expected.indexOf(0x0a); i >= 0 && i < lineStart; i = expected.indexOf(0x0a, i + 1))
    line++;

  const diffs: DiffLine[] = [];
  let e = lineStart;
  let g = lineStart;
  while (diffs.length < max) {
    const a = lineAt(expected, e);
    const b = lineAt(got, g);
    if (!a.bytes && !b.bytes) break;
    const equal =
      a.bytes && b.bytes && a.unterminated === b.unterminated && a.bytes.equals(b.bytes);
    if (!equal) diffs.push(diffLine(line, a, b));
    e = a.next;
    g = b.next;
    line++;
  }
  return diffs;
}
