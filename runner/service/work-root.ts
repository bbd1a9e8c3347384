// The folder a runner's judgings work in. A runner killed mid-judging leaves its scratch folder
// (and, as root, a tmpfs mounted on it) behind; the next judging on this host sweeps them away.
import { execFile } from 'node:child_process';
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const DEFAULT_WORK_ROOT = path.join(os.tmpdir(), 'perfjudge-runner');
/** The prefix runner/judge/scratch.ts gives each judging's folder. */
const SCRATCH_PREFIX = 'perfjudge-judging-';

/**
 * Creates the work root. Returns why the sandbox's unprivileged user could not reach it (a folder
 * on the way without search permission for others, e.g. one made by mkdtemp), or null.
 */
export async function prepareWorkRoot(dir: string): Promise<string | null> {
  const absolute = path.resolve(dir);
  await mkdir(absolute, { recursive: true });
  await chmod(absolute, 0o755);
  for (let d = absolute; ; d = path.dirname(d)) {
    const mode = (await stat(d)).mode;
    if ((mode & 0o001) === 0)
      return `${d} (mode ${(mode & 0o777).toString(8)}) is not searchable by other users`;
    if (path.dirname(d) === d) return null;
  }
}

/**
 * Removes every judging folder in the work root. Only safe while holding the host lock: then no
 * judging runs on this host, so whatever is there belongs to a runner that died.
 */
export async function sweepStaleScratch(dir: string): Promise<string[]> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of entries) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const folder = path.join(dir, name);
    if (process.getuid?.() === 0)
      await execFileAsync('umount', ['--lazy', folder], { timeout: 10_000 }).catch(() => undefined);
    await rm(folder, { recursive: true, force: true }).catch(() => undefined);
    removed.push(folder);
  }
  return removed;
}
