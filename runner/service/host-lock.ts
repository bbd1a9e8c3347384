// The host-wide judging lock: one judging (builds included) at a time on this machine, whichever
// runner process runs it. A lock file created with O_EXCL holds the owner's pid and process start
// time; a lock whose process is gone (kill -9, crash) is stale and is broken by the next taker.
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Host-wide by default: /run/lock is the machine's lock folder (tmpfs, emptied at boot). */
export const DEFAULT_HOST_LOCK_FILE = path.join(
  process.platform === 'linux' ? '/run/lock' : os.tmpdir(),
  'perfjudge-judging.lock',
);

export interface LockHolder {
  pid: number;
  /** The process's start time (clock ticks since boot), so a reused pid is not mistaken for it. */
  startTime: string | null;
  owner: string;
  since: string;
  token: string;
}

export interface HostLock {
  holder: LockHolder;
  /** True when a lock left by a dead process had to be broken to take this one. */
  brokeStale: LockHolder | null;
  release(): Promise<void>;
}

export interface AcquireHostLockOptions {
  file?: string;
  /** Who takes it (the runner id), for the operator reading the file. */
  owner: string;
  signal?: AbortSignal;
  pollMs?: number;
  /** Called once while another live process holds the lock. */
  onWait?: (holder: LockHolder | null) => void;
}

export class HostLockAbortedError extends Error {
  override name = 'HostLockAbortedError';
}

/** A file still being written by its creator is not stale before this. */
const UNREADABLE_GRACE_MS = 10_000;

/** Field 22 of /proc/<pid>/stat: when the process started; null off Linux or when it is gone. */
export async function processStartTime(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export async function processAlive(pid: number, startTime: string | null): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (startTime === null) return true;
  const now = await processStartTime(pid);
  return now === null || now === startTime;
}

function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid !== 'number' || typeof v.token !== 'string') return null;
    return {
      pid: v.pid,
      startTime: typeof v.startTime === 'string' ? v.startTime : null,
      owner: String(v.owner ?? ''),
      since: String(v.since ?? ''),
      token: v.token,
    };
  } catch {
    return null;
  }
}

async function readHolder(file: string): Promise<{ text: string; holder: LockHolder | null }> {
  const text = await readFile(file, 'utf8');
  return { text, holder: parseHolder(text) };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Breaks a stale lock without deleting a fresh one taken meanwhile by another breaker: the file is
 * renamed aside first and deleted only when it still holds the stale content seen; a fresh lock
 * caught by mistake is linked back (unless a third process took the name in that instant).
 */
async function breakStale(file: string, staleText: string): Promise<void> {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const text = await readFile(aside, 'utf8').catch(() => staleText);
  if (text !== staleText) await link(aside, file).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

export async function acquireHostLock(options: AcquireHostLockOptions): Promise<HostLock> {
  const file = options.file ?? DEFAULT_HOST_LOCK_FILE;
  const pollMs = options.pollMs ?? 500;
  const holder: LockHolder = {
    pid: process.pid,
    startTime: await processStartTime(process.pid),
    owner: options.owner,
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  let brokeStale: LockHolder | null = null;
  let waitReported = false;
  for (;;) {
    if (options.signal?.aborted)
      throw new HostLockAbortedError('stopped waiting for the host lock');
    try {
      const handle = await open(file, 'wx', 0o644);
      try {
        holder.since = new Date().toISOString();
        await handle.writeFile(`${JSON.stringify(holder)}\n`);
      } finally {
        await handle.close();
      }
      return { holder, brokeStale, release: () => releaseHostLock(file, holder.token) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = await readHolder(file).catch(() => null);
    if (current === null) continue; // released in between
    let stale: boolean;
    if (current.holder) {
      stale = !(await processAlive(current.holder.pid, current.holder.startTime));
    } else {
      const age = await stat(file).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      stale = age > UNREADABLE_GRACE_MS;
    }
    if (stale) {
      await breakStale(file, current.text);
      brokeStale = current.holder ?? brokeStale;
      continue;
    }
    if (!waitReported) {
      waitReported = true;
      options.onWait?.(current.holder);
    }
    await sleep(pollMs, options.signal);
  }
}

async function releaseHostLock(file: string, token: string): Promise<void> {
  const current = await readHolder(file).catch(() => null);
  // Only our own lock: if it was broken and retaken meanwhile, the file is someone else's now.
  if (current?.holder?.token === token) await unlink(file).catch(() => undefined);
}
