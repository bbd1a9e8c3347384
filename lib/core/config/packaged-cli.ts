// Defaults of the packaged contestant CLI (packages/cli): its package folder may not be writable
// (a global install by root), so builds, inputs and helpers go to the user's cache unless
// PERFJUDGE_DATA_DIR says otherwise. Applied before the first env() read, which validates it.
import os from 'node:os';
import path from 'node:path';

function userCacheDir(): string {
  if (process.platform === 'win32' && process.env.LOCALAPPDATA)
    return path.join(process.env.LOCALAPPDATA, 'perfjudge');
  // Root's sandbox runs as another user, who cannot enter a 0700 /root where the judge cannot stage
  // the files for it (a container's root without CAP_SYS_ADMIN): a system cache folder it can.
  if (process.getuid?.() === 0 && !process.env.XDG_CACHE_HOME) return '/var/cache/perfjudge';
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'perfjudge');
}

export function applyPackagedCliDefaults(): void {
  if (!process.env.PERFJUDGE_DATA_DIR) process.env.PERFJUDGE_DATA_DIR = userCacheDir();
}
