// Parses what contestants send: `git diff` output, a `git format-patch` series, or a plain `diff -u`.
// The bytes handed to `git apply` later are exactly the sections parsed here, so git never acts on
// text this parser did not see and validate (a diff hidden in a commit message, trailing junk).
import type { PatchFormat } from '../result';
import { reject } from '../reasons';
import { decodeName, readQuoted, showPath, stripComponents } from '../paths';

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

const MAIL_FROM_LINE = /^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$/;
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;
const BINARY_DIFFER = /^(?:Binary files|Files) (.*) and (.*) differ$/;
const MAX_HEADER_LINE = 4096;
const EPOCH =
  /^(?:1970-01-01|1969-12-31) [0-2][0-9]:[0-5][0-9]:00(?:\.0+)?(?: [-+][0-9]{2}:?[0-9]{2})?$/;

/** Cheap test first: the regexp backtracks on long lines full of " and ". */
function isBinaryLine(text: string): boolean {
  return text.length <= MAX_HEADER_LINE && text.endsWith(' differ') && BINARY_DIFFER.test(text);
}

interface Line {
  /** Without the LF; latin1, one char per byte. */
  text: string;
  start: number;
  end: number;
}

interface RawName {
  /** latin1 byte string, prefixes not yet stripped. */
  name: string;
  devNull: boolean;
  /** Traditional diffs mark a missing side with the epoch as its timestamp (`diff -N`). */
  epoch: boolean;
}

interface RawSection {
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

function display(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** A name on a `---`/`+++` line: quoted, or up to the tab before a timestamp. */
function readDiffName(field: string): RawName | undefined {
  let name: string;
  let rest: string;
  const quoted = readQuoted(field);
  if (quoted) {
    name = quoted.name;
    rest = quoted.rest.replace(/^\t/, '');
  } else if (field.startsWith('"')) {
    return undefined;
  } else {
    const tab = field.indexOf('\t');
    if (tab >= 0) {
      name = field.slice(0, tab);
      rest = field.slice(tab + 1);
    } else {
      // `diff -u` from some tools separates the date with spaces instead of a tab.
      const dated = /^(.*?) +(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d.*)$/.exec(field);
      name = dated ? dated[1]! : field;
      rest = dated ? dated[2]! : '';
    }
  }
  return { name, devNull: name === '/dev/null', epoch: EPOCH.test(rest.trim()) };
}

/** A name after `rename from ` and the like: quoted or the rest of the line, never prefixed. */
function readPlainName(field: string): string | undefined {
  if (field.startsWith('"')) {
    const quoted = readQuoted(field);
    return quoted && quoted.rest === '' ? quoted.name : undefined;
  }
  return field;
}

/** The two names of a `diff --git` line after stripping, or undefined when they cannot be told apart. */
function gitHeaderNames(rest: string, level: number): { a: string; b: string } | undefined {
  const split = splitGitHeader(rest, level);
  if (!split) return undefined;
  checkRawName(split.rawA);
  checkRawName(split.rawB);
  return { a: split.a, b: split.b };
}

function splitGitHeader(
  rest: string,
  level: number,
): { a: string; b: string; rawA: string; rawB: string } | undefined {
  const both = (rawA: string | undefined, rawB: string | undefined) => {
    if (rawA === undefined || rawB === undefined) return undefined;
    const a = stripComponents(rawA, level);
    const b = stripComponents(rawB, level);
    return a !== undefined && b !== undefined ? { a, b, rawA, rawB } : undefined;
  };
  if (rest.startsWith('"')) {
    const first = readQuoted(rest);
    if (!first || !first.rest.startsWith(' ')) return undefined;
    return both(first.name, readPlainName(first.rest.slice(1)));
  }
  const quotedSecond = rest.indexOf(' "');
  if (quotedSecond >= 0) {
    const second = readPlainName(rest.slice(quotedSecond + 1));
    if (second !== undefined) return both(rest.slice(0, quotedSecond), second);
  }
  // Unquoted names may hold spaces: take the split whose halves name the same file.
  const spaces = [...rest.matchAll(/ /g)].map((m) => m.index);
  for (const space of spaces) {
    const names = both(rest.slice(0, space), rest.slice(space + 1));
    if (names && names.a === names.b) return names;
  }
  if (spaces.length === 1) return both(rest.slice(0, spaces[0]), rest.slice(spaces[0]! + 1));
  return undefined;
}

class Parser {
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

  scan(from: number, to: number, mail: number): RawSection[] {
    const sections: RawSection[] = [];
    let i = from;
    while (i < to) {
      const text = this.at(i)!;
      if (text.startsWith('diff --git ')) {
        const section = this.gitSection(i, to, mail);
        sections.push(section.section);
        i = section.next;
      } else if (/^diff --(?:cc|combined) /.test(text)) {
        this.malformed(i, 'combined (merge) diffs are not supported; diff against the template');
      } else if (
        text.startsWith('--- ') &&
        i + 2 < to &&
        this.at(i + 1)!.startsWith('+++ ') &&
        this.at(i + 2)!.startsWith('@@ -')
      ) {
        const section = this.traditionalSection(i, to, mail);
        sections.push(section.section);
        i = section.next;
      } else if (
        text.startsWith('*** ') &&
        this.at(i + 1)?.startsWith('--- ') &&
        this.at(i + 2)?.startsWith('***************')
      ) {
        this.malformed(i, 'context diffs (diff -c) are not supported; use git diff or diff -u');
      } else if (HUNK_HEADER.test(text)) {
        this.malformed(
          i,
          'a hunk without a file header before it (a hunk has more lines than its @@ header counts?)',
        );
      } else {
        const binary = isBinaryLine(text) ? BINARY_DIFFER.exec(text) : null;
        if (binary) {
          // `diff -r` reports binary files in one line and leaves them out of the patch.
          const name = readDiffName(binary[2]!);
          sections.push({
            style: 'traditional',
            mail,
            line: i + 1,
            start: this.lines[i]!.start,
            end: this.lines[i]!.end,
            minus: name,
            plus: name,
            binary: true,
            hunks: [],
          });
        }
        i++;
      }
    }
    return sections;
  }

  gitSection(first: number, to: number, mail: number): { section: RawSection; next: number } {
    this.checkHeaderLine(first);
    const section: RawSection = {
      style: 'git',
      mail,
      line: first + 1,
      start: this.lines[first]!.start,
      end: 0,
      headerRest: this.at(first)!.slice('diff --git '.length),
      binary: false,
      hunks: [],
    };
    const nameField = (i: number, prefix: string): string => {
      const name = readPlainName(this.at(i)!.slice(prefix.length));
      return name ?? this.malformed(i, `unreadable file name in "${prefix.trim()}"`);
    };
    let i = first + 1;
    header: for (; i < to; i++) {
      const text = this.at(i)!;
      const field = (prefix: string) => text.startsWith(prefix);
      if (field('@@ -')) break;
      this.checkHeaderLine(i);
      if (field('old mode ')) section.oldMode = text.slice(9);
      else if (field('new mode ')) section.newMode = text.slice(9);
      else if (field('deleted file mode ')) section.deletedFileMode = text.slice(18);
      else if (field('new file mode ')) section.newFileMode = text.slice(14);
      else if (field('copy from ')) section.copyFrom = nameField(i, 'copy from ');
      else if (field('copy to ')) section.copyTo = nameField(i, 'copy to ');
      else if (field('rename from ')) section.renameFrom = nameField(i, 'rename from ');
      else if (field('rename to ')) section.renameTo = nameField(i, 'rename to ');
      else if (field('rename old ')) section.renameFrom = nameField(i, 'rename old ');
      else if (field('rename new ')) section.renameTo = nameField(i, 'rename new ');
      else if (field('similarity index ') || field('dissimilarity index ')) continue;
      else if (field('index ')) {
        const index = /^index [0-9a-f]+\.\.[0-9a-f]+(?: ([0-7]+))?$/.exec(text);
        if (!index) this.malformed(i, 'unreadable "index" line');
        section.indexMode = index[1];
      } else if (field('--- ')) {
        if (!this.at(i + 1)?.startsWith('+++ '))
          this.malformed(i, 'a "---" line without "+++" after it');
        this.checkHeaderLine(i + 1);
        section.minus = readDiffName(text.slice(4)) ?? this.malformed(i, 'unreadable file name');
        section.plus =
          readDiffName(this.at(i + 1)!.slice(4)) ?? this.malformed(i + 1, 'unreadable file name');
        i += 2;
        break header;
      } else break;
    }
    const text = this.at(i);
    if (text === 'GIT binary patch') {
      section.binary = true;
      while (i < to && !this.at(i)!.startsWith('diff --git ')) i++;
    } else if (text !== undefined && isBinaryLine(text)) {
      section.binary = true;
      i++;
    }
    i = this.hunks(section, i, to);
    section.end = this.lines[i - 1]!.end;
    return { section, next: i };
  }

  traditionalSection(
    first: number,
    to: number,
    mail: number,
  ): { section: RawSection; next: number } {
    this.checkHeaderLine(first);
    this.checkHeaderLine(first + 1);
    const section: RawSection = {
      style: 'traditional',
      mail,
      line: first + 1,
      start: this.lines[first]!.start,
      end: 0,
      minus:
        readDiffName(this.at(first)!.slice(4)) ?? this.malformed(first, 'unreadable file name'),
      plus:
        readDiffName(this.at(first + 1)!.slice(4)) ??
        this.malformed(first + 1, 'unreadable file name'),
      binary: false,
      hunks: [],
    };
    const next = this.hunks(section, first + 2, to);
    section.end = this.lines[next - 1]!.end;
    return { section, next };
  }

  /** Reads consecutive hunks; each ends when its @@ counts are used up, as git reads them. */
  hunks(section: RawSection, from: number, to: number): number {
    // The -p level is not known yet: show the name as git's a/ b/ convention would strip it.
    const label = () => {
      const side = section.plus && !section.plus.devNull ? section.plus : section.minus;
      const header = section.headerRest?.split(' ').pop();
      return display((side?.name ?? header ?? '').replace(/^[ab]\//, ''));
    };
    let i = from;
    while (i < to && this.at(i)!.startsWith('@@ -')) {
      this.checkHeaderLine(i);
      const header = HUNK_HEADER.exec(this.at(i)!);
      if (!header) this.malformed(i, `unreadable hunk header "${display(this.at(i)!)}"`, label());
      const hunk: Hunk = {
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        section: display(header[5]!.replace(/^ /, '')),
        lines: [],
        line: i + 1,
      };
      let oldLeft = hunk.oldLines;
      let newLeft = hunk.newLines;
      i++;
      while (oldLeft > 0 || newLeft > 0) {
        const text = i < to ? this.at(i)! : undefined;
        if (text === undefined)
          this.malformed(
            i,
            `the patch ends inside the hunk at line ${hunk.line} (truncated?)`,
            label(),
          );
        if (text.includes('\0')) section.binary = true;
        const prefix = text[0];
        // An empty line is an empty context line whose space a mailer or editor dropped, as git allows.
        const op =
          prefix === '+'
            ? 'add'
            : prefix === '-'
              ? 'remove'
              : prefix === ' ' || text === ''
                ? 'context'
                : undefined;
        if (op === undefined) {
          if (prefix === '\\' && hunk.lines.length > 0) {
            hunk.lines[hunk.lines.length - 1]!.noNewlineAtEnd = true;
            i++;
            continue;
          }
          this.malformed(
            i,
            `the hunk at line ${hunk.line} has fewer lines than its header "@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@" counts`,
            label(),
          );
        }
        if (op !== 'add') oldLeft--;
        if (op !== 'remove') newLeft--;
        if (oldLeft < 0 || newLeft < 0)
          this.malformed(
            i,
            `the hunk at line ${hunk.line} has more lines than its header counts`,
            label(),
          );
        hunk.lines.push({ op, text: display(text.slice(1)), noNewlineAtEnd: false });
        i++;
      }
      if (i < to && this.at(i)!.startsWith('\\') && hunk.lines.length > 0) {
        hunk.lines[hunk.lines.length - 1]!.noNewlineAtEnd = true;
        i++;
      }
      section.hunks.push(hunk);
    }
    const after = i < to ? this.at(i)! : undefined;
    if (
      after !== undefined &&
      /^[-+ ]/.test(after) &&
      after !== '-- ' &&
      !(after.startsWith('--- ') && this.at(i + 1)?.startsWith('+++ '))
    ) {
      this.malformed(
        i,
        'a hunk has more lines than its @@ header counts (was the patch edited by hand?)',
        label(),
      );
    }
    return i;
  }
}

/** Checked before stripping: -p1 would quietly turn `/etc/passwd` into `etc/passwd`. */
function checkRawName(raw: string): void {
  if (raw.startsWith('/') || raw.split('/').includes('..'))
    reject(
      'unsafe-path',
      `${showPath(display(raw))}: the path is absolute or has a ".." component`,
      display(raw),
    );
}

function resolveName(raw: string, level: number): string | undefined {
  checkRawName(raw);
  const stripped = stripComponents(raw, level);
  if (stripped === undefined) return undefined;
  const decoded = decodeName(stripped);
  if (decoded === undefined)
    reject(
      'unsafe-path',
      `${showPath(display(stripped))}: the file name is not valid UTF-8`,
      display(stripped),
    );
  return decoded;
}

function decodePlain(raw: string): string {
  const decoded = decodeName(raw);
  if (decoded === undefined)
    reject(
      'unsafe-path',
      `${showPath(display(raw))}: the file name is not valid UTF-8`,
      display(raw),
    );
  return decoded;
}

/** Thrown when a -p level cannot make sense of a name; not a rejection on its own. */
class NotViable extends Error {}

function modeFields(section: RawSection): Pick<FileChange, 'oldMode' | 'newMode'> {
  const oldMode = section.oldMode ?? section.deletedFileMode ?? section.indexMode;
  const newMode = section.newMode ?? section.newFileMode ?? section.indexMode;
  return {
    ...(oldMode !== undefined ? { oldMode } : {}),
    ...(newMode !== undefined ? { newMode } : {}),
  };
}

function resolveSection(parser: Parser, section: RawSection, level: number): FileChange {
  const line = section.line - 1;
  const base = {
    binary: section.binary,
    hunks: section.hunks,
    style: section.style,
    mail: section.mail,
    line: section.line,
    ...modeFields(section),
  };
  const side = (name: RawName | undefined): string | null | undefined => {
    if (!name) return undefined;
    if (name.devNull) return null;
    const resolved = resolveName(name.name, level);
    if (resolved === undefined) throw new NotViable();
    return resolved;
  };
  const minus = side(section.minus);
  const plus = side(section.plus);

  if (section.style === 'traditional') {
    const added = section.minus!.devNull || section.minus!.epoch;
    const deleted = section.plus!.devNull || section.plus!.epoch;
    if (added && deleted) parser.malformed(line, 'both sides of the diff are /dev/null');
    if (added) return { ...base, kind: 'add', oldPath: null, newPath: plus! };
    if (deleted) return { ...base, kind: 'delete', oldPath: minus!, newPath: null };
    // As git and patch(1) do: the old name wins when it is a prefix of the new one (x.cpp / x.cpp.new).
    const name = minus !== plus && plus!.startsWith(minus!) ? minus! : plus!;
    return { ...base, kind: 'modify', oldPath: name, newPath: name };
  }

  const header = gitHeaderNames(section.headerRest!, level);
  const headerOld = header ? decodePlain(header.a) : undefined;
  const headerNew = header ? decodePlain(header.b) : undefined;
  if (!header && !(section.minus || section.renameFrom || section.copyFrom)) {
    if (level > 0 && gitHeaderNames(section.headerRest!, 0)) throw new NotViable();
    parser.malformed(
      line,
      `the "diff --git ${display(section.headerRest!)}" header lacks file names`,
    );
  }
  const renameFrom = section.renameFrom !== undefined ? decodePlain(section.renameFrom) : undefined;
  const renameTo = section.renameTo !== undefined ? decodePlain(section.renameTo) : undefined;
  const copyFrom = section.copyFrom !== undefined ? decodePlain(section.copyFrom) : undefined;
  const copyTo = section.copyTo !== undefined ? decodePlain(section.copyTo) : undefined;

  const oldName = renameFrom ?? copyFrom ?? minus ?? headerOld;
  const newName = renameTo ?? copyTo ?? plus ?? headerNew;
  // git refuses a section whose names disagree; so do we, so both read the same file names.
  const shown = newName ?? oldName ?? display(section.headerRest!);
  if (header && headerOld !== undefined && oldName !== null && oldName !== headerOld)
    parser.malformed(line, `inconsistent old file name: header says ${showPath(headerOld)}`, shown);
  if (header && headerNew !== undefined && newName !== null && newName !== headerNew)
    parser.malformed(line, `inconsistent new file name: header says ${showPath(headerNew)}`, shown);

  if (typeof minus === 'string' && minus !== oldName)
    parser.malformed(line, `inconsistent old file name: "---" says ${showPath(minus)}`, shown);
  if (typeof plus === 'string' && plus !== newName)
    parser.malformed(line, `inconsistent new file name: "+++" says ${showPath(plus)}`, shown);
  if ((renameFrom === undefined) !== (renameTo === undefined))
    parser.malformed(line, 'a rename needs both "rename from" and "rename to"', shown);
  if ((copyFrom === undefined) !== (copyTo === undefined))
    parser.malformed(line, 'a copy needs both "copy from" and "copy to"', shown);

  if (section.newFileMode !== undefined) {
    if (minus !== undefined && minus !== null)
      parser.malformed(line, 'a new file must come from /dev/null', shown);
    if (newName === undefined || newName === null)
      parser.malformed(line, 'a new file without a name');
    return { ...base, kind: 'add', oldPath: null, newPath: newName };
  }
  if (section.deletedFileMode !== undefined) {
    if (plus !== undefined && plus !== null)
      parser.malformed(line, 'a deleted file must go to /dev/null', shown);
    if (oldName === undefined || oldName === null)
      parser.malformed(line, 'a deleted file without a name');
    return { ...base, kind: 'delete', oldPath: oldName, newPath: null };
  }
  if (minus === null || plus === null)
    parser.malformed(line, '/dev/null without "new file mode" or "deleted file mode"', shown);
  if (oldName === undefined || oldName === null || newName === undefined || newName === null)
    parser.malformed(line, 'the section lacks file names', shown);
  if (renameFrom !== undefined)
    return { ...base, kind: 'rename', oldPath: oldName, newPath: newName };
  if (copyFrom !== undefined)
    return { ...base, kind: 'add', oldPath: null, newPath: newName, copyFrom: oldName };
  if (oldName !== newName)
    parser.malformed(
      line,
      `inconsistent file names: ${showPath(oldName)} and ${showPath(newName)}`,
      shown,
    );
  if (
    section.hunks.length === 0 &&
    !section.binary &&
    section.oldMode === undefined &&
    section.newMode === undefined
  )
    parser.malformed(line, 'the section changes nothing', shown);
  return { ...base, kind: 'modify', oldPath: oldName, newPath: newName };
}

interface RawMail {
  index: number;
  subject?: string;
  sections: RawSection[];
}

function parseMails(parser: Parser): RawMail[] {
  const { lines } = parser;
  const starts = lines.flatMap((line, i) => (MAIL_FROM_LINE.test(line.text) ? [i] : []));
  const mails: RawMail[] = [];
  starts.forEach((start, n) => {
    const end = starts[n + 1] ?? lines.length;
    let i = start + 1;
    let subject: string | undefined;
    let lastHeader = '';
    for (; i < end && parser.at(i) !== ''; i++) {
      const text = parser.at(i)!;
      if (/^\s/.test(text) && lastHeader === 'subject') subject = `${subject ?? ''} ${text.trim()}`;
      const header = /^([A-Za-z-]+):\s*(.*)$/.exec(text);
      if (!header) continue;
      lastHeader = header[1]!.toLowerCase();
      if (lastHeader === 'subject') subject = header[2]!;
      if (
        lastHeader === 'content-transfer-encoding' &&
        !/^(7bit|8bit|binary)$/i.test(header[2]!.trim())
      )
        parser.malformed(
          i,
          `mail ${n + 1} is ${header[2]!.trim()}-encoded; send the output of git format-patch as it is`,
        );
    }
    // The diff starts after the `---` that ends the commit message, as `git am` reads a mail.
    let body = i;
    for (let k = i; k < end; k++) {
      if (parser.at(k) === '---') {
        body = k + 1;
        break;
      }
    }
    const sections = parser.scan(body, end, mails.length + 1);
    const cleanSubject = subject === undefined ? undefined : display(subject.trim());
    if (sections.length === 0) {
      // A cover letter (`[PATCH 0/2]`) carries no diff and is skipped.
      if (cleanSubject !== undefined && /^\[[^\]]*\b0+\/\d+\]/.test(cleanSubject)) return;
      parser.malformed(start, `mail ${n + 1} (${cleanSubject ?? 'no subject'}) contains no diff`);
    }
    mails.push({
      index: mails.length + 1,
      ...(cleanSubject !== undefined
        ? { subject: cleanSubject.replace(/^\[[^\]]*\]\s*/, '') }
        : {}),
      sections,
    });
  });
  return mails;
}

function levelScore(changes: FileChange[], knownFiles: ReadonlySet<string>): number {
  let score = 0;
  for (const change of changes) {
    if (change.oldPath !== null && knownFiles.has(change.oldPath)) score++;
    if (change.copyFrom !== undefined && knownFiles.has(change.copyFrom)) score++;
  }
  return score;
}

function sliceOf(text: string, sections: RawSection[]): Buffer {
  const parts = sections.map((section) => {
    const part = text.slice(section.start, section.end);
    return Buffer.from(part.endsWith('\n') ? part : `${part}\n`, 'latin1');
  });
  return Buffer.concat(parts);
}

/**
 * Parses a patch. Throws IntakeRejectionError ('empty', 'not-a-patch', 'malformed', 'unsafe-path'
 * for names that are not UTF-8); everything else about the changes is validatePatch's job.
 */
export function parsePatch(input: Buffer | string, options: ParseOptions = {}): ParsedPatch {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  let text = bytes.toString('latin1');
  if (text.startsWith('\xEF\xBB\xBF')) text = text.slice(3);
  if (text.trim() === '')
    reject(
      'empty',
      "the patch is empty: nothing changed, so the solution is still the template's copy of the " +
        'baseline (edit it, then make the patch with git diff)',
    );

  const parser = new Parser(text);
  const firstLine = parser.lines.find((line) => line.text.trim() !== '');
  const isSeries = firstLine !== undefined && MAIL_FROM_LINE.test(firstLine.text);
  const rawMails: RawMail[] = isSeries
    ? parseMails(parser)
    : [{ index: 1, sections: parser.scan(0, parser.lines.length, 1) }];
  const sections = rawMails.flatMap((mail) => mail.sections);
  if (sections.length === 0)
    reject(
      'not-a-patch',
      'no diff found: send the output of git diff, git format-patch, or diff -u against the template',
    );

  const knownFiles = new Set(options.knownFiles ?? []);
  const levels = options.stripLevel !== undefined ? [options.stripLevel] : [1, 0];
  let best: { level: number; changes: FileChange[]; score: number } | undefined;
  let firstError: unknown;
  for (const level of levels) {
    try {
      const changes = sections.map((section) => resolveSection(parser, section, level));
      const score = levelScore(changes, knownFiles);
      if (!best || score > best.score) best = { level, changes, score };
    } catch (error) {
      if (!(error instanceof NotViable)) firstError ??= error;
    }
  }
  if (!best) {
    if (firstError) throw firstError;
    reject(
      'malformed',
      'the file names in the patch have too few components for -p1 or -p0 (expected a/file b/file or file)',
    );
  }

  let offset = 0;
  const mails = rawMails.map((mail) => {
    const files = best.changes.slice(offset, offset + mail.sections.length);
    offset += mail.sections.length;
    return {
      index: mail.index,
      ...(mail.subject !== undefined ? { subject: mail.subject } : {}),
      files,
      applyText: sliceOf(text, mail.sections),
    };
  });
  const format: PatchFormat = isSeries
    ? 'format-patch'
    : sections.some((section) => section.style === 'git')
      ? 'git-diff'
      : 'unified';
  return { format, stripLevel: best.level, mails, files: best.changes };
}
