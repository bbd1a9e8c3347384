// A line of program output as text, with the characters that decide wordcount answers made
// visible: control bytes, carriage returns, no-break and other Unicode spaces, replacement marks.
import { Fragment } from 'react';

// Tab stays itself (it separates word and count); everything else odd is shown escaped.
const ODD =
  // eslint-disable-next-line no-control-regex -- finding control bytes is the point
  /[\u0000-\u0008\u000a-\u001f\u007f-\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff\ufffd]/gu;

function escape(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (ch === '\r') return '\\r';
  if (ch === '\n') return '\\n';
  if (ch === '\v') return '\\v';
  if (ch === '\f') return '\\f';
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The judge's own escapes (contracts/judging.ts diffLineSchema): invalid bytes and a backslash. */
const JUDGE_ESCAPE = /\\x[0-9a-f]{2}|\\\\/gu;

/**
 * `escaped`: the judge wrote invalid UTF-8 bytes as `\xNN` and a backslash as `\\`; those are
 * marked as escapes (an invalid byte) or shown as the backslash they stand for.
 */
export function VisibleText({ text, escaped = false }: { text: string | null; escaped?: boolean }) {
  if (text === null) return <span className="muted">(no line)</span>;
  const parts: React.ReactNode[] = [];
  let last = 0;
  const odd = escaped ? new RegExp(`${ODD.source}|${JUDGE_ESCAPE.source}`, 'gu') : ODD;
  for (const match of text.matchAll(odd)) {
    const at = match.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    if (match[0] === '\\\\') {
      parts.push('\\');
      last = at + match[0].length;
      continue;
    }
    const invalidByte = match[0].length === 4;
    parts.push(
      <mark
        key={at}
        className="escape"
        style={{ background: 'var(--warn-bg)', color: 'var(--warn)', borderRadius: 3 }}
        title={
          invalidByte
            ? 'a byte that is not valid UTF-8'
            : `U+${(match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
        }
      >
        {invalidByte ? match[0] : escape(match[0])}
      </mark>,
    );
    last = at + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <Fragment>{parts}</Fragment>;
}
