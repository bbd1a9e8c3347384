// Path handling for patches: git's quoting, -p prefix stripping, and the rules a path must obey to be
// safe on every target (Linux and Windows) before it reaches `git apply`.

const C_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  '\\': 92,
};

/**
 * Reads a git C-quoted name (`"a/caf\303\251.cpp"`) at the start of `text`. Text is a latin1 "byte
 * string" (one char per byte); so is the returned name. Undefined when the quoting is broken.
 */
export function readQuoted(text: string): { name: string; rest: string } | undefined {
  if (!text.startsWith('"')) return undefined;
  let name = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') return { name, rest: text.slice(i + 1) };
    if (char !== '\\') {
      name += char;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) return undefined;
    if (/[0-3]/.test(next)) {
      const octal = text.slice(i + 1, i + 4);
      if (!/^[0-3][0-7]{2}$/.test(octal)) return undefined;
      name += String.fromCharCode(parseInt(octal, 8));
      i += 3;
    } else if (C_ESCAPES[next] !== undefined) {
      name += String.fromCharCode(C_ESCAPES[next]);
      i += 1;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** Removes `level` leading components the way `git apply -p<level>` does; undefined when too few. */
export function stripComponents(name: string, level: number): string | undefined {
  let rest = name;
  for (let i = 0; i < level; i++) {
    const slash = rest.indexOf('/');
    if (slash < 0) return undefined;
    rest = rest.slice(slash + 1);
  }
  return rest;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Turns a latin1 byte string into text; undefined when the bytes are not UTF-8. */
export function decodeName(bytes: string): string | undefined {
  try {
    return utf8.decode(Buffer.from(bytes, 'latin1'));
  } catch {
    return undefined;
  }
}

/** A path as a message shows it: quoted with escapes when it holds anything unprintable. */
export function showPath(name: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x1f\x7f"\\]|^\s|\s$/.test(name) ? JSON.stringify(name) : name;
}

const WINDOWS_DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;
const MAX_PATH_LENGTH = 200;

/**
 * Why a path (relative to the template root, already stripped of a/ b/) is unsafe, or undefined when
 * it is fine. Windows rules apply everywhere because the same patch is judged on Windows hosts.
 */
export function unsafePathProblem(name: string): string | undefined {
  if (name === '') return 'the path is empty';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) return 'the path contains a NUL or control character';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'the path is absolute';
  if (name.includes('\\')) return 'the path contains a backslash';
  if (name.length > MAX_PATH_LENGTH) return `the path is longer than ${MAX_PATH_LENGTH} characters`;
  const parts = name.split('/');
  if (parts.includes('..')) return 'the path has a ".." component';
  if (parts.includes('.') || parts.includes('')) return 'the path has an empty or "." component';
  if (parts.some((part) => part.toLowerCase() === '.git')) return 'the path is .git or inside .git';
  if (/[:*?"<>|]/.test(name))
    return 'the path contains a character Windows forbids (: * ? " < > |)';
  // CMake's source lists split on ';' and treat [ ] $ # specially: such a name would break the
  // judge's build and look like the platform's fault.
  if (/[;[\]$#]/.test(name))
    return 'the path contains a character the build cannot take (; [ ] $ #)';
  if (parts.some((part) => /[. ]$/.test(part)))
    return 'a path component ends with a dot or a space (not allowed on Windows)';
  if (parts.some((part) => WINDOWS_DEVICE_NAMES.test(part)))
    return 'a path component is a Windows device name (CON, NUL, AUX, COM1, …)';
  return undefined;
}

/** Every folder above a path, nearest last: `a/b/c.hpp` → `a`, `a/b`. */
export function ancestors(name: string): string[] {
  const parts = name.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}
