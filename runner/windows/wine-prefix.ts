// The Wine prefix of the emulated target. One master prefix per Wine version is initialized once
// (wineboot, ~10 s, with progress) under the data dir; every run gets its own writable "shadow" of it
// in its run folder: the registry, the settings and the user folders (C:\users, C:\ProgramData)
// copied, Wine's installation (C:\windows with its ~650 MB of PE DLLs, C:\Program Files) as links
// into the master, which the sandbox mounts read-only. So nothing a run writes into its prefix (a
// planted DLL, a registry edit) reaches the master or any later run, and a run costs ~60 entries and
// ~2 MB of copying instead of 700 MB. (bubblewrap 0.8 on Debian 12 has no overlay mounts.)
import { UnavailableError } from '../../contracts';
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chown,
  copyFile,
  lstat,
  mkdir,
  readdir,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

import type { SandboxIdentity } from '../sandbox/work-dir';

const execFileAsync = promisify(execFile);

/** Files at most this big are copied into a run's shadow prefix; larger ones are symlinked. */
const COPY_MAX_BYTES = 64 * 1024;
/**
 * Wine's installation in the prefix: linked whole into the read-only master rather than mirrored
 * entry by entry. A run never writes there (checked: a run changes no file of its prefix), a
 * standard Windows account cannot either, and mirroring them (~870 of the prefix's ~930 entries) cost
 * ~0.5 CPU s of the runner's file work per run, more than Wine's own start.
 */
const LINKED_DIRS = new Set([
  'drive_c/windows',
  'drive_c/Program Files',
  'drive_c/Program Files (x86)',
]);
const READY_FILE = '.perfjudge-ready';
const WINEBOOT_TIMEOUT_MS = 10 * 60_000;

/** Wine's own programs no run needs: its services and its debugger. */
const OVERRIDES = 'services.exe=d;winedbg.exe=d;winemenubuilder.exe=d';

/**
 * The Wine environment of the master prefix's one-time initialization (`wineboot -i`): what a run
 * turns off below, but for wineboot itself.
 */
const INIT_ENV = { WINEDEBUG: '-all', WINEDLLOVERRIDES: OVERRIDES } as const;

/**
 * The Wine environment of every emulated run. services.exe and winedbg are off: console programs
 * need no Windows services (Wine's start drops from ~0.7 s to ~0.15 s per run), and a crash must end
 * the program with its exception status instead of starting a debugger. wineboot is off too: each
 * run has its own wineserver, whose first process would start `wineboot --init` to set up the
 * session (volatile hardware keys, run-once entries) — about 40% of a run's Wine start in CPU and
 * half its wall time (0.25 → 0.14 CPU s, 1.2 → 0.6 s for a hello-world, measured 2026-12-05), for
 * nothing a console program reads: the prefix itself was initialized once by wineboot -i.
 */
export const WINE_ENV = {
  WINEDEBUG: '-all',
  WINEDLLOVERRIDES: `${OVERRIDES};wineboot.exe=d`,
} as const;

/** `wine --version` ("wine-8.0 (Debian 8.0~repack-4)"), or null when Wine is not installed. */
export async function wineVersion(wine = 'wine'): Promise<string | null> {
  try {
    const { stdout } = await execFileAsync(wine, ['--version'], {
      timeout: 30_000,
      env: { PATH: '/usr/bin:/bin', ...WINE_ENV },
    });
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

export interface MasterPrefixOptions {
  dataDir: string;
  /** Who the sandboxed runs are: Wine refuses a prefix its user does not own. */
  identity: SandboxIdentity | null;
  wine?: string;
  log?: (line: string) => void;
}

/**
 * The master prefix for this Wine version, initialized on first use. Built in a temporary folder and
 * renamed into place, so a crash or a concurrent runner never leaves a half-made prefix behind.
 */
export async function ensureMasterPrefix(options: MasterPrefixOptions): Promise<string> {
  const wine = options.wine ?? 'wine';
  const version = await wineVersion(wine);
  if (!version)
    throw new UnavailableError(
      'Wine is not installed (wine --version failed): apt-get install wine wine64',
    );
  const tag = createHash('sha256').update(version).digest('hex').slice(0, 12);
  const root = path.join(options.dataDir, 'wine');
  const master = path.join(root, `prefix-${tag}`);
  if (await isReady(master)) return master;

  await mkdir(root, { recursive: true, mode: 0o755 });
  const temp = `${master}.${process.pid}.tmp`;
  await rm(temp, { recursive: true, force: true });
  const log = options.log ?? (() => undefined);
  log(`initializing the Wine prefix (${version}) in ${master}: once, about 10-30 s`);
  const started = performance.now();
  await runWineboot(wine, temp, log);
  await writeFile(path.join(temp, READY_FILE), `${version}\n`);
  if (options.identity) await chownTree(temp, options.identity);
  try {
    await rename(temp, master);
  } catch (error) {
    // Another runner finished first: use its prefix.
    await rm(temp, { recursive: true, force: true });
    if (!(await isReady(master))) throw error;
  }
  log(`Wine prefix ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return master;
}

async function isReady(dir: string): Promise<boolean> {
  return (await stat(path.join(dir, READY_FILE)).catch(() => null))?.isFile() ?? false;
}

/** wineboot -i, its output shown line by line (no X display: Wine's GUI parts just say so). */
function runWineboot(wine: string, prefix: string, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(wine, ['wineboot', '-i'], {
      env: { PATH: '/usr/bin:/bin', HOME: prefix, WINEPREFIX: prefix, ...INIT_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), WINEBOOT_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() && !line.startsWith('Fontconfig')) log(`wineboot: ${line.trim()}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new UnavailableError(`cannot run wineboot: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      // wineboot returns before its wineserver is gone; the prefix is complete by then.
      execFile('wineserver', ['-k'], { env: { PATH: '/usr/bin:/bin', WINEPREFIX: prefix } }, () =>
        code === 0
          ? resolve()
          : reject(new UnavailableError(`wineboot -i failed with exit code ${code}`)),
      );
    });
  });
}

async function chownTree(dir: string, identity: SandboxIdentity): Promise<void> {
  const walk = async (p: string): Promise<void> => {
    const info = await lstat(p);
    // lchown semantics: links are re-owned themselves, never followed.
    if (!info.isSymbolicLink()) await chown(p, identity.uid, identity.gid);
    if (info.isDirectory()) for (const name of await readdir(p)) await walk(path.join(p, name));
  };
  await walk(dir);
}

/**
 * Makes `dest` a writable prefix backed by the master: directories and small files copied, Wine's
 * installation (LINKED_DIRS) and any other large file as symlinks to `masterInSandbox` (where the
 * sandbox mounts the master read-only).
 */
export async function shadowPrefix(
  master: string,
  dest: string,
  masterInSandbox: string,
): Promise<void> {
  const walk = async (rel: string): Promise<void> => {
    await mkdir(path.join(dest, rel), { recursive: true, mode: 0o755 });
    for (const entry of await readdir(path.join(master, rel), { withFileTypes: true })) {
      const childRel = path.join(rel, entry.name);
      const src = path.join(master, childRel);
      const dst = path.join(dest, childRel);
      const inMaster = path.join(masterInSandbox, childRel);
      if (entry.isDirectory())
        await (LINKED_DIRS.has(childRel) ? symlink(inMaster, dst) : walk(childRel));
      else if (entry.isSymbolicLink()) await symlink(await readlink(src), dst);
      else if (entry.isFile()) {
        const info = await stat(src);
        // The registry is rewritten on exit: always a private copy.
        if (info.size <= COPY_MAX_BYTES || entry.name.endsWith('.reg')) await copyFile(src, dst);
        else await symlink(inMaster, dst);
      }
    }
  };
  await walk('.');
}
