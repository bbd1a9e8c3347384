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

const DIFF_MAX_LINES = 4000;
/** A longer line (minified code, a data blob) is cut so one line cannot stretch the page. */
const DIFF_MAX_LINE_CHARS = 1000;

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function stripPrefix(path: string): string {
  const p = path.replace(/\t.*$/, '').trim();
  return p.startsWith('a/') || p.startsWith('b/') ? p.slice(2) : p;
}

/** Where the parser is: the current file, the next line numbers, what is left of the hunk. */
interface DiffState {
  files: DiffFile[];
  file: DiffFile | null;
  oldLine: number;
  newLine: number;
  // Lines left in the current hunk: "--- x" inside a hunk is a removed line, not a file header.
  oldLeft: number;
  newLeft: number;
  oldPath: string | null;
  /** A "diff --git" line started the current file and its hunks have not begun. */
  gitHeader: boolean;
}

interface ClassifiedLine {
  kind: DiffLineKind;
  oldLine: number | null;
  newLine: number | null;
}

function startFile(st: DiffState, path: string, change: DiffFile['change'] = 'modified'): void {
  st.file = { path, change, additions: 0, deletions: 0 };
  st.files.push(st.file);
}

/** An added, removed or context line inside a hunk. */
function hunkLine(st: DiffState, line: string): ClassifiedLine {
  if (line.startsWith('+')) {
    st.newLeft--;
    if (st.file) st.file.additions++;
    return { kind: 'add', oldLine: null, newLine: st.newLine++ };
  }
  if (line.startsWith('-')) {
    st.oldLeft--;
    if (st.file) st.file.deletions++;
    return { kind: 'del', oldLine: st.oldLine++, newLine: null };
  }
  st.oldLeft--;
  st.newLeft--;
  return { kind: 'ctx', oldLine: st.oldLine++, newLine: st.newLine++ };
}

/** The "+++" line: names the file of a plain diff, and says whether it is added or deleted. */
function newPathLine(st: DiffState, line: string): void {
  const newPath = stripPrefix(line.slice(4));
  // A plain diff has no "diff --git" line: there the "+++" line starts the file.
  if (!st.gitHeader) startFile(st, newPath === '/dev/null' ? (st.oldPath ?? newPath) : newPath);
  st.gitHeader = false;
  if (st.file) {
    if (st.oldPath === '/dev/null') st.file.change = 'added';
    else if (newPath === '/dev/null') st.file.change = 'deleted';
  }
}

/** A line outside a hunk: a file header, a hunk header, or anything else (meta). */
function headerLine(st: DiffState, line: string): DiffLineKind {
  if (line.startsWith('diff --git ')) {
    st.oldLeft = st.newLeft = 0;
    const m = / b\/(.*)$/.exec(line);
    startFile(st, m ? m[1]! : line.slice(11));
    st.oldPath = null;
    st.gitHeader = true;
    return 'file';
  }
  if (line.startsWith('--- ')) {
    st.oldPath = stripPrefix(line.slice(4));
    return 'file';
  }
  if (line.startsWith('+++ ')) {
    newPathLine(st, line);
    return 'file';
  }
  if (/^(new|deleted) file mode /.test(line)) {
    if (st.file) st.file.change = line.startsWith('new') ? 'added' : 'deleted';
    return 'file';
  }
  if (/^(index |similarity |rename |old mode |new mode |Binary files )/.test(line)) return 'file';
  const m = HUNK.exec(line);
  if (!m) return 'meta';
  st.gitHeader = false;
  st.oldLine = Number(m[1]);
  st.oldLeft = m[2] === undefined ? 1 : Number(m[2]);
  st.newLine = Number(m[3]);
  st.newLeft = m[4] === undefined ? 1 : Number(m[4]);
  return 'hunk';
}

export function parseUnifiedDiff(patchText: string, maxLines = DIFF_MAX_LINES): ParsedDiff {
  const raw = patchText.split('\n');
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  const lines: DiffLine[] = [];
  const st: DiffState = {
    files: [],
    file: null,
    oldLine: 0,
    newLine: 0,
    oldLeft: 0,
    newLeft: 0,
    oldPath: null,
    gitHeader: false,
  };
  for (const full of raw) {
    const line = full.endsWith('\r') ? full.slice(0, -1) : full;
    const inHunk = st.oldLeft > 0 || st.newLeft > 0;
    const classified: ClassifiedLine =
      inHunk &&
      (line.startsWith('+') || line.startsWith('-') || line.startsWith(' ') || line === '')
        ? hunkLine(st, line)
        : { kind: headerLine(st, line), oldLine: null, newLine: null };
    if (lines.length < maxLines)
      lines.push({
        ...classified,
        text: line.length > DIFF_MAX_LINE_CHARS ? `${line.slice(0, DIFF_MAX_LINE_CHARS)}…` : line,
      });
  }
  return { lines, files: st.files, totalLines: raw.length, truncated: raw.length > lines.length };
}
