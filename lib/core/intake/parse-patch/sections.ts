// Finds the file sections of a diff: `diff --git` ones with their extended headers, plain
// `---`/`+++` ones, and `diff -r`'s one-line notes about binary files.
import { BINARY_DIFFER, HUNK_HEADER, isBinaryLine, type PatchLines } from './lines';
import { readDiffName, readPlainName } from './names';
import { readHunks } from './hunks';
import type { RawSection } from './types';

export function scanSections(p: PatchLines, from: number, to: number, mail: number): RawSection[] {
  const sections: RawSection[] = [];
  let i = from;
  while (i < to) {
    const text = p.at(i)!;
    if (text.startsWith('diff --git ')) {
      const section = gitSection(p, i, to, mail);
      sections.push(section.section);
      i = section.next;
    } else if (/^diff --(?:cc|combined) /.test(text)) {
      p.malformed(i, 'combined (merge) diffs are not supported; diff against the template');
    } else if (
      text.startsWith('--- ') &&
      i + 2 < to &&
      p.at(i + 1)!.startsWith('+++ ') &&
      p.at(i + 2)!.startsWith('@@ -')
    ) {
      const section = traditionalSection(p, i, to, mail);
      sections.push(section.section);
      i = section.next;
    } else if (
      text.startsWith('*** ') &&
      p.at(i + 1)?.startsWith('--- ') &&
      p.at(i + 2)?.startsWith('***************')
    ) {
      p.malformed(i, 'context diffs (diff -c) are not supported; use git diff or diff -u');
    } else if (HUNK_HEADER.test(text)) {
      p.malformed(
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
          start: p.lines[i]!.start,
          end: p.lines[i]!.end,
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

function gitSection(
  p: PatchLines,
  first: number,
  to: number,
  mail: number,
): { section: RawSection; next: number } {
  p.checkHeaderLine(first);
  const section: RawSection = {
    style: 'git',
    mail,
    line: first + 1,
    start: p.lines[first]!.start,
    end: 0,
    headerRest: p.at(first)!.slice('diff --git '.length),
    binary: false,
    hunks: [],
  };
  const nameField = (i: number, prefix: string): string => {
    const name = readPlainName(p.at(i)!.slice(prefix.length));
    return name ?? p.malformed(i, `unreadable file name in "${prefix.trim()}"`);
  };
  let i = first + 1;
  header: for (; i < to; i++) {
    const text = p.at(i)!;
    const field = (prefix: string) => text.startsWith(prefix);
    if (field('@@ -')) break;
    p.checkHeaderLine(i);
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
      if (!index) p.malformed(i, 'unreadable "index" line');
      section.indexMode = index[1];
    } else if (field('--- ')) {
      if (!p.at(i + 1)?.startsWith('+++ ')) p.malformed(i, 'a "---" line without "+++" after it');
      p.checkHeaderLine(i + 1);
      section.minus = readDiffName(text.slice(4)) ?? p.malformed(i, 'unreadable file name');
      section.plus =
        readDiffName(p.at(i + 1)!.slice(4)) ?? p.malformed(i + 1, 'unreadable file name');
      i += 2;
      break header;
    } else break;
  }
  const text = p.at(i);
  if (text === 'GIT binary patch') {
    section.binary = true;
    while (i < to && !p.at(i)!.startsWith('diff --git ')) i++;
  } else if (text !== undefined && isBinaryLine(text)) {
    section.binary = true;
    i++;
  }
  i = readHunks(p, section, i, to);
  section.end = p.lines[i - 1]!.end;
  return { section, next: i };
}

function traditionalSection(
  p: PatchLines,
  first: number,
  to: number,
  mail: number,
): { section: RawSection; next: number } {
  p.checkHeaderLine(first);
  p.checkHeaderLine(first + 1);
  const section: RawSection = {
    style: 'traditional',
    mail,
    line: first + 1,
    start: p.lines[first]!.start,
    end: 0,
    minus: readDiffName(p.at(first)!.slice(4)) ?? p.malformed(first, 'unreadable file name'),
    plus: readDiffName(p.at(first + 1)!.slice(4)) ?? p.malformed(first + 1, 'unreadable file name'),
    binary: false,
    hunks: [],
  };
  const next = readHunks(p, section, first + 2, to);
  section.end = p.lines[next - 1]!.end;
  return { section, next };
}
