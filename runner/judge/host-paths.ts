// No host paths in anything a contestant sees (docs/security.md): the judging's result (build logs and
// compiler messages, test output, messages, warnings) and its progress messages name the judge's
// folders by neutral names — the patched tree is /judge/src, the harness /judge/harness — never
// the checkout's or the scratch folder's absolute paths on the runner. One place rewrites them, as
// the result leaves the judge; the runner's own log keeps the real paths for its operator.
import { realpathSync } from 'node:fs';

export interface HostPath {
  /** Absolute path on the runner. */
  host: string;
  /** What a contestant is shown instead. */
  shown: string;
}

export interface JudgingFolders {
  /** The contestant's tree (template + patch). */
  srcDir: string;
  buildDir: string;
  /** The sandbox's writable folder around them. */
  boxDir: string;
  /** The judging's scratch folder. */
  workDir: string;
  harnessDir: string;
  templateDir: string;
  challengeDir: string;
  dataDir: string;
  repoRoot: string;
}

/** The neutral names, most specific first (a folder inside another is rewritten as itself). */
export function judgingHostPaths(folders: JudgingFolders): HostPath[] {
  const pairs: HostPath[] = [
    { host: folders.srcDir, shown: '/judge/src' },
    { host: folders.buildDir, shown: '/judge/build' },
    { host: folders.boxDir, shown: '/judge/box' },
    { host: folders.workDir, shown: '/judge/work' },
    { host: folders.harnessDir, shown: '/judge/harness' },
    { host: folders.templateDir, shown: '/judge/template' },
    { host: folders.challengeDir, shown: '/judge/challenge' },
    { host: folders.dataDir, shown: '/judge/data' },
    { host: folders.repoRoot, shown: '/judge/perfjudge' },
  ];
  // The same folders as the kernel resolves them (a symlinked /tmp or checkout shows that way).
  const resolved = pairs.flatMap((p) => {
    try {
      const real = realpathSync(p.host);
      return real !== p.host ? [{ host: real, shown: p.shown }] : [];
    } catch {
      return [];
    }
  });
  return [...pairs, ...resolved]
    .filter((p) => p.host.length > 1)
    .sort((a, b) => b.host.length - a.host.length);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Rewrites every host path in `text` (only whole path components: /tmp/ab is not /tmp/abc). */
export function scrubText(text: string, paths: readonly HostPath[]): string {
  let out = text;
  for (const p of paths) {
    if (!out.includes(p.host)) continue;
    out = out.replace(new RegExp(`${escape(p.host)}(?![^/\\s'"\`:;,)\\]}>])`, 'g'), p.shown);
  }
  return out;
}

/** A copy of a JSON-like value with every string scrubbed. */
export function scrubHostPaths<T>(value: T, paths: readonly HostPath[]): T {
  if (typeof value === 'string') return scrubText(value, paths) as T;
  if (Array.isArray(value)) return value.map((v) => scrubHostPaths(v as unknown, paths)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) copy[k] = scrubHostPaths(v, paths);
    return copy as T;
  }
  return value;
}
