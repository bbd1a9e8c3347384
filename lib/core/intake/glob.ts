// A small glob matcher for manifest patterns (`*`, `?`, `**`), because path.matchesGlob is still
// experimental in Node 20 and prints a warning.

export interface GlobOptions {
  /** Protected paths match case-insensitively: on Windows `MAIN.CPP` would overwrite `main.cpp`. */
  caseInsensitive?: boolean;
}

const cache = new Map<string, RegExp>();

function segmentSource(segment: string): string {
  let source = '';
  for (const char of segment) {
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return source;
}

/** Compiles a `/`-separated pattern; `**` as a whole segment matches zero or more folders. */
function globToRegExp(pattern: string, options: GlobOptions = {}): RegExp {
  const key = `${options.caseInsensitive ? 'i' : 's'}:${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const segments = pattern.split('/');
  let source = '';
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') {
      if (!last) source += '(?:[^/]+/)*';
      // A trailing `/**` also matches the folder itself: `tests/**` protects a file named `tests`.
      else if (i === 0) source += '.*';
      else source = `${source.slice(0, -1)}(?:/.*)?`;
    } else {
      source += segmentSource(segment) + (last ? '' : '/');
    }
  });
  const regexp = new RegExp(`^${source}$`, options.caseInsensitive ? 'i' : '');
  cache.set(key, regexp);
  return regexp;
}

export function matchesGlob(filePath: string, pattern: string, options: GlobOptions = {}): boolean {
  return globToRegExp(pattern, options).test(filePath);
}

/** The first pattern that matches, so a message can say which rule applied. */
export function firstMatchingGlob(
  filePath: string,
  patterns: readonly string[],
  options: GlobOptions = {},
): string | undefined {
  return patterns.find((pattern) => matchesGlob(filePath, pattern, options));
}
