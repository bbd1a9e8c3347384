// A section's hunks, read the way git reads them: each ends when its @@ counts are used up.
import { display, HUNK_HEADER, type PatchLines } from './lines';
import type { Hunk, RawSection } from './types';

/** Reads consecutive hunks; each ends when its @@ counts are used up, as git reads them. */
export function readHunks(p: PatchLines, section: RawSection, from: number, to: number): number {
  // The -p level is not known yet: show the name as git's a/ b/ convention would strip it.
  const label = () => {
    const side = section.plus && !section.plus.devNull ? section.plus : section.minus;
    const header = section.headerRest?.split(' ').pop();
    return display((side?.name ?? header ?? '').replace(/^[ab]\//, ''));
  };
  let i = from;
  while (i < to && p.at(i)!.startsWith('@@ -')) i = readHunk(p, section, i, to, label);
  const after = i < to ? p.at(i)! : undefined;
  if (
    after !== undefined &&
    /^[-+ ]/.test(after) &&
    after !== '-- ' &&
    !(after.startsWith('--- ') && p.at(i + 1)?.startsWith('+++ '))
  ) {
    p.malformed(
      i,
      'a hunk has more lines than its @@ header counts (was the patch edited by hand?)',
      label(),
    );
  }
  return i;
}

/** Reads the hunk whose @@ header is line `first` into `section`; returns the line after it. */
function readHunk(
  p: PatchLines,
  section: RawSection,
  first: number,
  to: number,
  label: () => string,
): number {
  p.checkHeaderLine(first);
  const header = HUNK_HEADER.exec(p.at(first)!);
  if (!header) p.malformed(first, `unreadable hunk header "${display(p.at(first)!)}"`, label());
  const hunk: Hunk = {
    oldStart: Number(header[1]),
    oldLines: header[2] === undefined ? 1 : Number(header[2]),
    newStart: Number(header[3]),
    newLines: header[4] === undefined ? 1 : Number(header[4]),
    section: display(header[5]!.replace(/^ /, '')),
    lines: [],
    line: first + 1,
  };
  let oldLeft = hunk.oldLines;
  let newLeft = hunk.newLines;
  let i = first + 1;
  while (oldLeft > 0 || newLeft > 0) {
    const text = i < to ? p.at(i)! : undefined;
    if (text === undefined)
      p.malformed(i, `the patch ends inside the hunk at line ${hunk.line} (truncated?)`, label());
    if (text.includes('\0')) section.binary = true;
    const op = lineOp(text);
    if (op === undefined) {
      if (text[0] === '\\' && hunk.lines.length > 0) {
        hunk.lines[hunk.lines.length - 1]!.noNewlineAtEnd = true;
        i++;
        continue;
      }
      p.malformed(
        i,
        `the hunk at line ${hunk.line} has fewer lines than its header "@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@" counts`,
        label(),
      );
    }
    if (op !== 'add') oldLeft--;
    if (op !== 'remove') newLeft--;
    if (oldLeft < 0 || newLeft < 0)
      p.malformed(
        i,
        `the hunk at line ${hunk.line} has more lines than its header counts`,
        label(),
      );
    hunk.lines.push({ op, text: display(text.slice(1)), noNewlineAtEnd: false });
    i++;
  }
  if (i < to && p.at(i)!.startsWith('\\') && hunk.lines.length > 0) {
    hunk.lines[hunk.lines.length - 1]!.noNewlineAtEnd = true;
    i++;
  }
  section.hunks.push(hunk);
  return i;
}

/** A hunk line's kind by its prefix; undefined for anything else. */
function lineOp(text: string): 'add' | 'remove' | 'context' | undefined {
  const prefix = text[0];
  if (prefix === '+') return 'add';
  if (prefix === '-') return 'remove';
  // An empty line is an empty context line whose space a mailer or editor dropped, as git allows.
  if (prefix === ' ' || text === '') return 'context';
  return undefined;
}
