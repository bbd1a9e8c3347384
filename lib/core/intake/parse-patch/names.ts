// File names in a patch's headers: quoted or plain, prefixed (a/ b/) or not, checked before and
// after the -p level strips them.
import { reject } from '../reasons';
import { decodeName, readQuoted, showPath, stripComponents } from '../paths';
import { display, EPOCH } from './lines';
import type { RawName } from './types';

/** A name on a `---`/`+++` line: quoted, or up to the tab before a timestamp. */
export function readDiffName(field: string): RawName | undefined {
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
export function readPlainName(field: string): string | undefined {
  if (field.startsWith('"')) {
    const quoted = readQuoted(field);
    return quoted && quoted.rest === '' ? quoted.name : undefined;
  }
  return field;
}

/** The two names of a `diff --git` line after stripping, or undefined when they cannot be told apart. */
export function gitHeaderNames(rest: string, level: number): { a: string; b: string } | undefined {
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

/** Checked before stripping: -p1 would quietly turn `/etc/passwd` into `etc/passwd`. */
function checkRawName(raw: string): void {
  if (raw.startsWith('/') || raw.split('/').includes('..'))
    reject(
      'unsafe-path',
      `${showPath(display(raw))}: the path is absolute or has a ".." component`,
      display(raw),
    );
}

export function resolveName(raw: string, level: number): string | undefined {
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

export function decodePlain(raw: string): string {
  const decoded = decodeName(raw);
  if (decoded === undefined)
    reject(
      'unsafe-path',
      `${showPath(display(raw))}: the file name is not valid UTF-8`,
      display(raw),
    );
  return decoded;
}
