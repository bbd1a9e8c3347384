// The host-wide judging lock: one judging (builds included) at a time on this machine, whichever
// runner process (or `perfjudge judge`) runs it, first come first served.
//
// Fairness: a taker first draws a ticket, a file `<seq>-<pid>-<start>` in the folder `<lock>.queue`
// next to the lock, numbered above every ticket present (O_EXCL, so two takers never share a
// number). Only the lowest live ticket may take the lock, so a holder that comes back for its next
// job queues behind everyone who waited meanwhile. A ticket whose process is gone (kill -9, crash)
// is removed by whoever sees it. The lock itself is a file created with O_EXCL that holds the
// owner's pid and process start time; a lock whose process is gone is stale and is broken by the
// next taker.
import { AppError } from '../../contracts';
import { randomBytes } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
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
  /** How many other takers (live processes, or other holders in this one) wait for it now. */
  waiting(): Promise<number>;
  release(): Promise<void>;
}

export interface AcquireHostLockOptions {
  file?: string;
  /** Who takes it (the runner id), for the operator reading the file. */
  owner: string;
  signal?: AbortSignal;
  /** How often a waiter looks again when no file change woke it (the queue folder is watched). */
  pollMs?: number;
  /** Called once while another live process holds the lock or queues before this taker. */
  onWait?: (holder: LockHolder | null) => void;
  /** Called whenever the number of takers before this one changes (0: taking it now). */
  onQueue?: (ahead: number, holder: LockHolder | null) => void;
}

export class HostLockAbortedError extends AppError {
  override name = 'HostLockAbortedError';
  readonly code = 'cancelled' as const;
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

async function processAlive(pid: number, startTime: string | null): Promise<boolean> {
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

/** The folder of tickets next to the lock file. */
export function hostLockQueueDir(file: string): string {
  return `${file}.queue`;
}

const TICKET_NAME = /^\d{12}$/;

interface Ticket {
  seq: number;
  file: string;
}

async function listTickets(dir: string): Promise<Ticket[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((name) => TICKET_NAME.test(name))
    .map((name) => ({ seq: Number(name), file: path.join(dir, name) }))
    .sort((a, b) => a.seq - b.seq);
}

/**
 * A ticket numbered above every ticket present. Written aside and hard-linked into place: the link
 * fails if another taker drew the same number first, and a ticket is never seen half-written.
 */
async function drawTicket(dir: string, holder: LockHolder): Promise<Ticket> {
  await mkdir(dir, { recursive: true });
  const aside = path.join(dir, `.draw-${process.pid}-${holder.token}`);
  await writeFileExclusive(aside, `${JSON.stringify(holder)}\n`);
  try {
    for (;;) {
      const last = (await listTickets(dir)).at(-1);
      const seq = (last?.seq ?? 0) + 1;
      const file = path.join(dir, String(seq).padStart(12, '0'));
      try {
        await link(aside, file);
        return { seq, file };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

async function writeFileExclusive(file: string, text: string): Promise<void> {
  const handle = await open(file, 'wx', 0o644);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

/** The live tickets before `seq`, oldest first; those of dead processes are removed on the way. */
async function liveTicketsBefore(dir: string, seq: number): Promise<LockHolder[]> {
  const ahead: LockHolder[] = [];
  for (const ticket of await listTickets(dir)) {
    if (ticket.seq >= seq) break;
    const holder = await readHolder(ticket.file).then(
      (h) => h.holder,
      () => undefined,
    );
    if (holder === undefined) continue; // released in between
    // Tickets are complete when they appear (linked into place), so an unreadable one is garbage.
    if (holder === null || !(await processAlive(holder.pid, holder.startTime))) {
      await unlink(ticket.file).catch(() => undefined);
      continue;
    }
    ahead.push(holder);
  }
  return ahead;
}

/** How many live tickets were drawn after `seq`. */
async function liveTicketsAfter(dir: string, seq: number): Promise<number> {
  let count = 0;
  for (const ticket of await listTickets(dir)) {
    if (ticket.seq <= seq) continue;
    const holder = await readHolder(ticket.file).then(
      (h) => h.holder,
      () => null,
    );
    if (holder && (await processAlive(holder.pid, holder.startTime))) count++;
  }
  return count;
}

/** Resolves when the queue folder changes, after `ms` at the latest, or when aborted. */
function changeWaiter(dir: string): {
  next(ms: number, signal?: AbortSignal): Promise<void>;
  close(): void;
} {
  let wake: (() => void) | null = null;
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(dir, () => wake?.());
    watcher.on('error', () => undefined);
  } catch {
    watcher = null; // no file watching here: polling alone
  }
  return {
    next(ms, signal) {
      return new Promise<void>((resolve) => {
        wake = resolve;
        void sleep(ms, signal).then(resolve);
      }).finally(() => (wake = null));
    },
    close: () => watcher?.close(),
  };
}

/** Takes the lock file once this taker is first in line; false while a live holder has it. */
async function tryTakeLockFile(
  file: string,
  holder: LockHolder,
): Promise<
  { taken: true; brokeStale: LockHolder | null } | { taken: false; holder: LockHolder | null }
> {
  let brokeStale: LockHolder | null = null;
  for (;;) {
    try {
      holder.since = new Date().toISOString();
      await writeFileExclusive(file, `${JSON.stringify(holder)}\n`);
      return { taken: true, brokeStale };
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
    if (!stale) return { taken: false, holder: current.holder };
    await breakStale(file, current.text);
    brokeStale = current.holder ?? brokeStale;
  }
}

export async function acquireHostLock(options: AcquireHostLockOptions): Promise<HostLock> {
  const file = options.file ?? DEFAULT_HOST_LOCK_FILE;
  const queueDir = hostLockQueueDir(file);
  const pollMs = options.pollMs ?? 500;
  const holder: LockHolder = {
    pid: process.pid,
    startTime: await processStartTime(process.pid),
    owner: options.owner,
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  if (options.signal?.aborted) throw new HostLockAbortedError('stopped waiting for the host lock');
  const ticket = await drawTicket(queueDir, holder);
  const changes = changeWaiter(queueDir);
  let waitReported = false;
  let lastAhead = -1;
  try {
    for (;;) {
      if (options.signal?.aborted)
        throw new HostLockAbortedError('stopped waiting for the host lock');
      const ahead = await liveTicketsBefore(queueDir, ticket.seq);
      let current: LockHolder | null = ahead[0] ?? null;
      if (ahead.length === 0) {
        const attempt = await tryTakeLockFile(file, holder);
        if (attempt.taken) {
          if (lastAhead > 0) options.onQueue?.(0, null);
          return {
            holder,
            brokeStale: attempt.brokeStale,
            waiting: () => liveTicketsAfter(queueDir, ticket.seq),
            release: () => releaseHostLock(file, holder.token, ticket.file),
          };
        }
        // A holder without a ticket (a perfjudge from before tickets): first in line behind it.
        current = attempt.holder;
      }
      const count = Math.max(1, ahead.length);
      if (!waitReported) {
        waitReported = true;
        options.onWait?.(current);
      }
      if (count !== lastAhead) {
        lastAhead = count;
        options.onQueue?.(count, current);
      }
      await changes.next(pollMs, options.signal);
    }
  } catch (error) {
    await unlink(ticket.file).catch(() => undefined);
    throw error;
  } finally {
    changes.close();
  }
}

async function releaseHostLock(file: string, token: string, ticketFile: string): Promise<void> {
  const current = await readHolder(file).catch(() => null);
  // Only our own lock: if it was broken and retaken meanwhile, the file is someone else's now.
  if (current?.holder?.token === token) await unlink(file).catch(() => undefined);
  // The ticket last: the next in line moves only once the lock file is free.
  await unlink(ticketFile).catch(() => undefined);
}
