// Turns a raw section into a FileChange at one -p level, checking that its names agree as git does.
import { showPath } from '../paths';
import { display, type PatchLines } from './lines';
import { decodePlain, gitHeaderNames, resolveName } from './names';
import type { FileChange, RawName, RawSection } from './types';

function modeFields(section: RawSection): Pick<FileChange, 'oldMode' | 'newMode'> {
  const oldMode = section.oldMode ?? section.deletedFileMode ?? section.indexMode;
  const newMode = section.newMode ?? section.newFileMode ?? section.indexMode;
  return {
    ...(oldMode !== undefined ? { oldMode } : {}),
    ...(newMode !== undefined ? { newMode } : {}),
  };
}

type Base = Omit<FileChange, 'kind' | 'oldPath' | 'newPath' | 'copyFrom'>;
/** A side's resolved name: null for /dev/null, undefined when the section has no such line. */
type Side = string | null | undefined;

/**
 * A section's change at strip level `level`, or undefined when that level cannot make sense of a
 * name (not a rejection on its own: the caller tries the other level).
 */
export function resolveSection(
  parser: PatchLines,
  section: RawSection,
  level: number,
): FileChange | undefined {
  const base = {
    binary: section.binary,
    hunks: section.hunks,
    style: section.style,
    mail: section.mail,
    line: section.line,
    ...modeFields(section),
  };
  const minus = sideAt(section.minus, level);
  if (minus === false) return undefined;
  const plus = sideAt(section.plus, level);
  if (plus === false) return undefined;

  return section.style === 'traditional'
    ? resolveTraditional(parser, section, base, minus, plus)
    : resolveGit(parser, section, level, base, minus, plus);
}

/** A side's name at `level`; false when the level cannot make sense of it. */
function sideAt(name: RawName | undefined, level: number): Side | false {
  if (!name) return undefined;
  if (name.devNull) return null;
  return resolveName(name.name, level) ?? false;
}

function resolveTraditional(
  parser: PatchLines,
  section: RawSection,
  base: Base,
  minus: Side,
  plus: Side,
): FileChange {
  const line = section.line - 1;
  const added = section.minus!.devNull || section.minus!.epoch;
  const deleted = section.plus!.devNull || section.plus!.epoch;
  if (added && deleted) parser.malformed(line, 'both sides of the diff are /dev/null');
  if (added) return { ...base, kind: 'add', oldPath: null, newPath: plus! };
  if (deleted) return { ...base, kind: 'delete', oldPath: minus!, newPath: null };
  // As git and patch(1) do: the old name wins when it is a prefix of the new one (x.cpp / x.cpp.new).
  const name = minus !== plus && plus!.startsWith(minus!) ? minus! : plus!;
  return { ...base, kind: 'modify', oldPath: name, newPath: name };
}

/** A `diff --git` section: its header, ---/+++ and extended-header names must all agree. */
function resolveGit(
  parser: PatchLines,
  section: RawSection,
  level: number,
  base: Base,
  minus: Side,
  plus: Side,
): FileChange | undefined {
  const line = section.line - 1;
  const header = gitHeaderNames(section.headerRest!, level);
  const headerOld = header ? decodePlain(header.a) : undefined;
  const headerNew = header ? decodePlain(header.b) : undefined;
  if (!header && !(section.minus || section.renameFrom || section.copyFrom)) {
    if (level > 0 && gitHeaderNames(section.headerRest!, 0)) return undefined;
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
