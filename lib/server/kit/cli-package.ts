// The packaged contestant CLI the platform serves at /downloads/perfjudge-cli.tgz: built by
// scripts/pack-cli.ts (in a child process, so the web server never loads esbuild) on the first
// request after its sources changed, and cached under <data dir>/downloads/.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../core/config/env';

const execFileAsync = promisify(execFile);

/** What the bundle is made of; a change to any of these files makes a new tarball. */
const SOURCE_ROOTS = ['cli', 'lib', 'runner', 'contracts', 'challenges', 'packages/cli'];
const SOURCE_FILES = ['package.json', 'scripts/pack-cli.ts'];
const SKIPPED = new Set(['node_modules', 'generated', '.data']);
const PACK_TIMEOUT_MS = 5 * 60_000;

async function listFiles(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await listFiles(full, out);
    else if (entry.isFile()) out.push(full);
  }
}

/** A digest of the sources' names, sizes and modification times (cheap, and enough to notice a deploy). */
async function sourcesDigest(): Promise<string> {
  const files: string[] = SOURCE_FILES.map((f) => path.join(REPO_ROOT, f));
  for (const root of SOURCE_ROOTS) await listFiles(path.join(REPO_ROOT, root), files);
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const s = await stat(file).catch(() => undefined);
    hash.update(`${path.relative(REPO_ROOT, file)}\0${s?.size ?? -1}\0${s?.mtimeMs ?? -1}\n`);
  }
  return hash.digest('hex').slice(0, 20);
}

const building = new Map<string, Promise<string>>();

/** The tarball's path, packed first when these sources have none yet. */
export async function cliPackage(dataDir: string): Promise<{ path: string; bytes: number }> {
  const dir = path.join(dataDir, 'downloads', `perfjudge-cli-${await sourcesDigest()}`);
  const file = path.join(dir, 'perfjudge-cli.tgz');
  let pending = building.get(file);
  if (!pending) {
    pending = (async () => {
      if ((await stat(file).catch(() => undefined))?.isFile()) return file;
      await mkdir(dir, { recursive: true });
      const temp = `${dir}.${process.pid}.tmp`;
      try {
        await execFileAsync(
          process.execPath,
          ['--import', 'tsx', path.join(REPO_ROOT, 'scripts/pack-cli.ts'), '--out', temp],
          { cwd: REPO_ROOT, timeout: PACK_TIMEOUT_MS, maxBuffer: 16 << 20 },
        );
        await rename(path.join(temp, 'perfjudge-cli.tgz'), file);
      } finally {
        await rm(temp, { recursive: true, force: true });
      }
      return file;
    })();
    building.set(file, pending);
    pending.catch(() => building.delete(file));
  }
  const built = await pending;
  return { path: built, bytes: (await stat(built)).size };
}
