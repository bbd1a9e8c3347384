// The judging's scratch folder: every file a build or run writes lands here, so it lives on its
// own size-capped tmpfs. Without the cap, many files each under the file-size limit could fill the
// host's disk (found by the attack suite). Only root can mount; elsewhere the folder is uncapped
// and the judging says so.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface Scratch {
  dir: string;
  /** The cap in bytes, or null when the folder could not be put on a capped filesystem. */
  capBytes: number | null;
  dispose(): Promise<void>;
}

export async function createScratch(parent: string, capBytes: number): Promise<Scratch> {
  const dir = await mkdtemp(path.join(parent, 'perfjudge-judging-'));
  await chmod(dir, 0o755);
  let mounted = false;
  if (process.getuid?.() === 0) {
    try {
      await execFileAsync(
        'mount',
        ['-t', 'tmpfs', '-o', `size=${capBytes},mode=0755,nosuid,nodev`, 'tmpfs', dir],
        {
          timeout: 10_000,
        },
      );
      mounted = true;
    } catch {
      // No mount permission (a container without CAP_SYS_ADMIN): fall back to an uncapped folder.
    }
  }
  return {
    dir,
    capBytes: mounted ? capBytes : null,
    async dispose() {
      if (mounted)
        await execFileAsync('umount', ['--lazy', dir], { timeout: 10_000 }).catch(() => undefined);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
