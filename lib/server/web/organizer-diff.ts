// A unified diff (git diff, git format-patch, plain diff -u) split into lines for the organizer's
// diff view: each line classed (file header, hunk, added, removed, context) with its old and new
// line numbers, plus the files it touches. Pure and bounded: a huge patch is cut, never rendered whole.

export type DiffLineKind = 'file' | 'hunk' | 'add' | 'del' | 'ctx' | 'meta';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  oldLine: number | null;
  newLine: number | null;
}

export interface DiffFile {
  path: string;
  /** "added", "deleted" or "modified". */
  change: 'added' | 'deleted' | 'modified';
  additions: number;
  deletions: number;
}

export interface ParsedDiff {
  lines: DiffLine[];
  files: DiffFile[];
  /** Lines in the whole patch, and whether `lines` stops before the end. */
  totalLines: number;
  truncated: boolean;
}

export const DIFF_MAX_LINES = 4000;
/** A longer line (minified code, a data blob) is cut so one line cannot stretch the page. */
export const DIFF_MAX_LINE_CHARS = 1000;

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function stripPrefix(path: string): string {
  const p = path.replace(/\t.*$/, '').trim();
  return p.startsWith('a/') || p.startsWith('b/') ? p.slice(2) : p;
}

export function parseUnifiedDiff(patchText: string, maxLines = DIFF_MAX_LINES): ParsedDiff {
  const raw = patchText.split('\n');
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  const lines: DiffLine[] = [];
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let oldLine = 0;
  let newLine = 0;
  // Lines left in the current hunk: "--- x" inside a hunk is a removed line, not a file header.
  let oldLeft = 0;
  let newLeft = 0;
  let oldPath: string | null = null;
  /** A "diff --git" line started the current file and its hunks have not begun. */
  let gitHeader = false;

  const startFile = (path: string, change: DiffFile['change'] = 'modified') => {
    file = { path, change, additions: 0, deletions: 0 };
    files.push(file);
  };

  for (const full of raw) {
    const line = full.endsWith('\r') ? full.slice(0, -1) : full;
    let kind: DiffLineKind = 'meta';
    let o: number | null = null;
    let n: number | null = null;
    const inHunk = oldLeft > 0 || newLeft > 0;
    if (
      inHunk &&
      (line.startsWith('+') || line.startsWith('-') || line.startsWith(' ') || line === '')
    ) {
      if (line.startsWith('+')) {
        kind = 'add';
        n = newLine++;
        newLeft--;
        if (file) (file as DiffFile).additions++;
      } else if (line.startsWith('-')) {
        kind = 'del';
        o = oldLine++;
        oldLeft--;
        if (file) (file as DiffFile).deletions++;
      } else {
        kind = 'ctx';
        o = oldLine++;
        n = newLine++;
        oldLeft--;
        newLeft--;
      }
    } else if (line.startsWith('diff --git ')) {
      kind = 'file';
      oldLeft = newLeft = 0;
      const m = / b\/(.*)$/.exec(line);
      startFile(m ? m[1]! : line.slice(11));
      oldPath = null;
      gitHeader = true;
    } else if (line.startsWith('--- ')) {
      kind = 'file';
      oldPath = stripPrefix(line.slice(4));
    } else if (line.startsWith('+++ ')) {
      kind = 'file';
      const newPath = stripPrefix(line.slice(4));
      // A plain diff has no "diff --git" line: there the "+++" line starts the file.
      if (!gitHeader) startFile(newPath === '/dev/null' ? (oldPath ?? newPath) : newPath);
      gitHeader = false;
      const f = file as DiffFile | null;
      if (f) {
        if (oldPath === '/dev/null') f.change = 'added';
        else if (newPath === '/dev/null') f.change = 'deleted';
      }
    } else if (/^(new|deleted) file mode /.test(line)) {
      kind = 'file';
      const f = file as DiffFile | null;
      if (f) f.change = line.startsWith('new') ? 'added' : 'deleted';
    } else if (/^(index |similarity |rename |old mode |new mode |Binary files )/.test(line)) {
      kind = 'file';
    } else {
      const m = HUNK.exec(line);
      if (m) {
        kind = 'hunk';
        gitHeader = false;
        oldLine = Number(m[1]);
        oldLeft = m[2] === undefined ? 1 : Number(m[2]);
        newLine = Number(m[3]);
        newLeft = m[4] === undefined ? 1 : Number(m[4]);
      }
    }
    if (lines.length < maxLines)
      lines.push({
        kind,
        text: line.length > DIFF_MAX_LINE_CHARS ? `${line.slice(0, DIFF_MAX_LINE_CHARS)}…` : line,
        oldLine: o,
        newLine: n,
      });
  }
  return { lines, files, totalLines: raw.length, truncated: raw.length > lines.length };
}
