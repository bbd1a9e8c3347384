// Reading /proc and /sys under a root folder: "/" on a real host, a folder of recorded files in
// tests, so every parser and verdict can be checked on contents from hosts we do not have.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const HOST_ROOT = '/';

/** The trimmed text of `<root>/<file>`, or null when it does not exist or cannot be read. */
export async function readHostFile(root: string, file: string): Promise<string | null> {
  try {
    return (await readFile(path.join(root, file), 'utf8')).trim();
  } catch {
    return null;
  }
}
