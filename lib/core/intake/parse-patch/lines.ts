// The patch as lines (latin1, one char per byte, so offsets are byte offsets) and the checks every
// structural line passes.
import { reject } from '../reasons';
import { showPath } from '../paths';
import type { Line } from './types';

export const MAIL_FROM_LINE = /^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$/;
export const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;
export const BINARY_DIFFER = /^(?:Binary files|Files) (.*) and (.*) differ$/;
const MAX_HEADER_LINE = 4096;
export const EPOCH =
  /^(?:1970-01-01|1969-12-31) [0-2][0-9]:[0-5][0-9]:00(?:\.0+)?(?: [-+][0-9]{2}:?[0-9]{2})?$/;

/** Cheap test first: the regexp backtracks on long lines full of " and ". */
export function isBinaryLine(text: string): boolean {
  return text.length <= MAX_HEADER_LINE && text.endsWith(' differ') && BINARY_DIFFER.test(text);
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline + 1;
    lines.push({ text: text.slice(start, newline < 0 ? text.length : newline), start, end });
    start = end;
  }
  return lines;
}

export function display(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The patch's lines, and how a line that breaks the format is rejected. */
export class PatchLines {
  readonly lines: Line[];
  constructor(readonly text: string) {
    this.lines = splitLines(text);
  }

  at(i: number): string | undefined {
    return this.lines[i]?.text;
  }

  malformed(i: number, what: string, file?: string): never {
    const where = file !== undefined ? `${showPath(file)}: ` : '';
    return reject('malformed', `${where}${what} (patch line ${i + 1})`, file);
  }

  /**
   * Structural lines must end in LF: a patch converted to CRLF as a whole has lost its bytes. Their
   * length is bounded, which also keeps the name regexps linear.
   */
  checkHeaderLine(i: number): void {
    if ((this.at(i)?.length ?? 0) > MAX_HEADER_LINE)
      this.malformed(i, `a header line is longer than ${MAX_HEADER_LINE} bytes`);
    if (this.at(i)?.endsWith('\r'))
      this.malformed(
        i,
        'the patch has Windows (CRLF) line endings in its headers; send it exactly as git or diff wrote it',
      );
  }
}
