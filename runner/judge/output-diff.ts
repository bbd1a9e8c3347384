// The first lines where a run's output differs from the expected output, for a WRONG_ANSWER a
// contestant can act on. Lines are shown as text (invalid UTF-8 replaced), capped in length.
import type { DiffLine } from '../../contracts';

const MAX_LINE_CHARS = 200;

function lineAt(buf: Buffer, start: number): { text: string | null; next: number } {
  if (start >= buf.length) return { text: null, next: start };
  const end = buf.indexOf(0x0a, start);
  const stop = end < 0 ? buf.length : end;
  let text = buf.toString('utf8', start, Math.min(stop, start + MAX_LINE_CHARS * 4));
  if (text.length > MAX_LINE_CHARS || stop - start > MAX_LINE_CHARS * 4)
    text = `${text.slice(0, MAX_LINE_CHARS)}…`;
  // A missing final newline is a difference too: mark it so the two lines do not look equal.
  if (end < 0) text += ' [no newline at end]';
  return { text, next: end < 0 ? buf.length : end + 1 };
}

/** Up to `max` differing lines, starting at the first difference (1-based line numbers). */
export function firstDifferences(expected: Buffer, got: Buffer, max = 3): DiffLine[] {
  // Skip the common prefix quickly, then back up to the start of its line.
  let same = 0;
  const limit = Math.min(expected.length, got.length);
  while (same < limit && expected[same] === got[same]) same++;
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
    if (a.text === null && b.text === null) break;
    const aBytes = expected.subarray(e, a.next);
    const bBytes = got.subarray(g, b.next);
    if (!aBytes.equals(bBytes)) diffs.push({ line, expected: a.text, got: b.text });
    e = a.next;
    g = b.next;
    line++;
  }
  return diffs;
}
