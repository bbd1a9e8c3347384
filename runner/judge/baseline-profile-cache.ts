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
  kind: 'memory' | 'cachegrind' | 'sampled';
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

/**
 * The cached value for the key, or `compute()`'s (stored for next time). A cache file that does not
 * parse with the schema is ignored and replaced; a build key of '' (no compiler version) never caches.
 */
export async function cachedBaselineProfile<S extends z.ZodType>(options: {
  dataDir: string;
  key: BaselineProfileKey;
  schema: S;
  compute: () => Promise<z.infer<S>>;
}): Promise<CachedProfile<z.infer<S>>> {
  if (!options.key.buildKey) return { value: await options.compute(), cached: false };
  const dir = path.join(options.dataDir, 'baseline-profiles');
  const file = path.join(dir, `${options.key.kind}-${baselineProfileKey(options.key)}.json`);
  const stored = await readFile(file, 'utf8')
    .then((text) => options.schema.safeParse(JSON.parse(text)))
    .catch(() => null);
  if (stored?.success) return { value: stored.data as z.infer<S>, cached: true };

  const value = await options.compute();
  await mkdir(dir, { recursive: true });
  // Written aside and renamed: a concurrent reader never sees half a file.
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(value));
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
  return { value, cached: false };
}
