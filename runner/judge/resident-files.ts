// The files a timed run reads besides its input, which must be in the page cache before every run
// of either side: a solution can see (and evict, with posix_fadvise DONTNEED) the shared libraries
// under /usr that the baseline loads, just as it can evict the input.
import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The sandbox helper takes at most 16 resident files; the input and the binary come first. */
const MAX_LIBRARIES = 12;
const LOADER_CACHE = '/etc/ld.so.cache';

/** Parses `ldd` output: "libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x…)" and "/lib64/ld-….so.2 (0x…)". */
export function parseLdd(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    const m = /=>\s*(\/\S+)\s+\(0x/.exec(line) ?? /^\s*(\/\S+)\s+\(0x/.exec(line);
    if (m) found.push(m[1]!);
  }
  return found;
}

/**
 * The shared libraries (and the loader's cache) a trusted binary (the baseline, built by the judge from the pristine
 * template) loads, as real paths. Never call it on a solution: ldd may run the binary's own
 * program interpreter. Empty when ldd is missing or the binary is static or not for this host.
 */
export async function sharedLibraries(trustedBinary: string): Promise<string[]> {
  try {
    const { stdout } = await execFileAsync('ldd', [trustedBinary], { timeout: 10_000 });
    // The loader reads its cache at every start too, and a solution can see (and evict) it.
    const files = [...parseLdd(stdout), LOADER_CACHE];
    const paths = await Promise.all(files.map((p) => realpath(p).catch(() => null)));
    return [...new Set(paths.filter((p): p is string => p !== null))].slice(0, MAX_LIBRARIES);
  } catch {
    return [];
  }
}

/** What the result calls a resident file: never a host path. */
export function residentLabel(file: string, input: string, binary: string): string {
  if (file === input) return 'input';
  if (file === binary) return 'program';
  return path.basename(file);
}
