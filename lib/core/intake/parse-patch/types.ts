// What the patch parser returns (exported from lib/core/intake), and the raw pieces its parts hand
// each other before the -p level is known.
import type { PatchFormat } from '../result';

export type ChangeKind = 'modify' | 'add' | 'delete' | 'rename';

export interface HunkLine {
  op: 'context' | 'add' | 'remove';
  /** The line without its prefix and without the LF; a CR of a CRLF file stays. Decoded as UTF-8 for display. */
  text: string;
  /** Followed by `\ No newline at end of file`. */
  noNewlineAtEnd: boolean;
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** What follows the second `@@` (git's function-name hint). */
  section: string;
  lines: HunkLine[];
  /** 1-based line of the `@@` header in the patch text. */
  line: number;
}

export interface FileChange {
  /** Relative to the template root; null for an added file. */
  oldPath: string | null;
  /** Relative to the template root; null for a deleted file. */
  newPath: string | null;
  kind: ChangeKind;
  /** Mode before (`old mode`, `deleted file mode`, or the `index` line's mode). */
  oldMode?: string;
  /** Mode after (`new mode`, `new file mode`, or the `index` line's mode). */
  newMode?: string;
  binary: boolean;
  hunks: Hunk[];
  /** Source of a git copy (`copy from`); such a change is an `add`. */
  copyFrom?: string;
  /** `diff --git` section, or a plain `---`/`+++` one (whose creations git infers from the hunks). */
  style: 'git' | 'traditional';
  /** 1-based mail of a format-patch series (1 otherwise). */
  mail: number;
  /** 1-based line where the section starts in the patch text. */
  line: number;
}

export interface PatchMail {
  /** 1-based position in the series. */
  index: number;
  /** The mail's subject without its `[PATCH n/m]` tag. */
  subject?: string;
  files: FileChange[];
  /** Exactly the parsed sections' bytes, for `git apply`. */
  applyText: Buffer;
}

export interface ParsedPatch {
  format: PatchFormat;
  /** The `-p` level that turns the patch's names into template-relative paths. */
  stripLevel: number;
  mails: PatchMail[];
  /** Every mail's changes, in the order they apply. */
  files: FileChange[];
}

export interface ParseOptions {
  /** Template files, to choose between -p1 and -p0 for diffs without a/ b/ prefixes. */
  knownFiles?: readonly string[];
  /** Force a -p level instead of detecting it. */
  stripLevel?: number;
}

/** One line of the patch. */
export interface Line {
  /** Without the LF; latin1, one char per byte. */
  text: string;
  start: number;
  end: number;
}

export interface RawName {
  /** latin1 byte string, prefixes not yet stripped. */
  name: string;
  devNull: boolean;
  /** Traditional diffs mark a missing side with the epoch as its timestamp (`diff -N`). */
  epoch: boolean;
}

export interface RawSection {
  style: 'git' | 'traditional';
  mail: number;
  line: number;
  start: number;
  end: number;
  headerRest?: string;
  minus?: RawName;
  plus?: RawName;
  renameFrom?: string;
  renameTo?: string;
  copyFrom?: string;
  copyTo?: string;
  oldMode?: string;
  newMode?: string;
  newFileMode?: string;
  deletedFileMode?: string;
  indexMode?: string;
  binary: boolean;
  hunks: Hunk[];
}
