// The baseline's untimed profile runs (its memory series, its sampled stacks, its cachegrind counts
// and hotspots) are the same for every judging on a host: the same trusted binary on the same
// input. They are kept per key like
// the baseline's build (runner/build/build-cache.ts) — the build key already covers the challenge
// version, toolchain, compiler version and CPU — plus the input and this host, so each is run once.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';

/** Bumped whenever what a cached profile holds, or how it is produced, changes. */
const KEY_SCHEME = 'perfjudge-baseline-profile-v1';

export interface BaselineProfileKey {
  kind: 'memory' | 'cachegrind' | 'sampled' | 'topdown';
  /** The baseline's build key (cachedBuild): the binary, its toolchain and CPU. */
  buildKey: string;
  inputSha256: string;
  /** Anything else the run depends on (limits, sampling interval). */
  settings?: unknown;
}

export function baselineProfileKey(key: BaselineProfileKey): string {
  const header = { scheme: KEY_SCHEME, host: os.hostname(), platform: process.platform, ...key };
  return createHash('sha256').update(JSON.stringify(header)).digest('hex');
}

export interface CachedProfile<T> {
  value: T;
  /** True when it came from the cache and nothing ran. */
  cached: boolean;
}

function cacheFile(dataDir: string, key: BaselineProfileKey): string | null {
  // A build key of '' (no compiler version) never caches.
  if (!key.buildKey) return null;
  return path.join(dataDir, 'baseline-profiles', `${key.kind}-${baselineProfileKey(key)}.json`);
}

/** The cached value for the key, or null (none, or a file that does not parse with the schema). */
export async function readBaselineProfile<S extends z.ZodType>(
  dataDir: string,
  key: BaselineProfileKey,
  schema: S,
): Promise<z.infer<S> | null> {
  const file = cacheFile(dataDir, key);
  if (!file) return null;
  const stored = await readFile(file, 'utf8')
    .then((text) => schema.safeParse(JSON.parse(text)))
    .catch(() => null);
  return stored?.success ? (stored.data as z.infer<S>) : null;
}

/** Keeps the value for the key (replacing a damaged file); nothing for a build key of ''. */
export async function storeBaselineProfile(
  dataDir: string,
  key: BaselineProfileKey,
  value: unknown,
): Promise<void> {
  const file = cacheFile(dataDir, key);
  if (!file) return;
  await mkdir(path.dirname(file), { recursive: true });
  // Written aside and renamed: a concurrent reader never sees half a file.
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(value));
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** The cached value for the key, or `compute()`'s (stored for next time). */
export async function cachedBaselineProfile<S extends z.ZodType>(options: {
  dataDir: string;
  key: BaselineProfileKey;
  schema: S;
  compute: () => Promise<z.infer<S>>;
}): Promise<CachedProfile<z.infer<S>>> {
  const stored = await readBaselineProfile(options.dataDir, options.key, options.schema);
  if (stored !== null) return { value: stored, cached: true };
  const value = await options.compute();
  await storeBaselineProfile(options.dataDir, options.key, value);
  return { value, cached: false };
}
