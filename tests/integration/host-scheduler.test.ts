// A runner's hold of the host lock (runner/service/host-scheduler.ts), with the real lock files:
// the judgings a runner holds at once enter under one hold; another process waiting for the lock
// closes the hold to newcomers once its admission window is over, so they queue behind it; a
// judging cancelled while it waits leaves without ever holding the host.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JudgingCancelledError } from '../../runner/judge/errors';
import { acquireHostLock } from '../../runner/service/host-lock';
import { createHostScheduler } from '../../runner/service/host-scheduler';

let dir: string;
let lockFile: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-scheduler-'));
  lockFile = path.join(dir, 'judging.lock');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function scheduler(owner: string, windowMs: number, taken: string[]) {
  return createHostScheduler(async (onWaiting) => {
    const lock = await acquireHostLock({
      file: lockFile,
      owner,
      pollMs: 20,
      onQueue: (ahead) => ahead > 0 && onWaiting(ahead),
    });
    taken.push(owner);
    return lock;
  }, windowMs);
}

const quiet = { note: () => undefined, onWaiting: () => undefined };

describe('host scheduler', () => {
  it('judgings that arrive together share one hold of the host lock', async () => {
    const taken: string[] = [];
    const runner = scheduler('runner-a', 60_000, taken);
    const leaves = await Promise.all([1, 2, 3].map(() => runner.enter(quiet)));
    expect(taken).toEqual(['runner-a']);
    for (const leave of leaves) await leave();
    // Released after the last: another process takes it at once.
    const other = await acquireHostLock({ file: lockFile, owner: 'other', pollMs: 20 });
    await other.release();
  });

  // -1: the window is over even in the millisecond a hold is taken. The process that waited for the
  // hold still enters it while a newcomer of the other waits (CI once saw runner-b shut out of its
  // own hold that way, and both waited for ever).
  it.each([0, -1])(
    'once another process waits and the window (%i ms) is over, newcomers queue behind it',
    async (windowMs) => {
      const taken: string[] = [];
      const a = scheduler('runner-a', windowMs, taken);
      const b = scheduler('runner-b', windowMs, taken);
      const leaveA1 = await a.enter(quiet);
      const waitingB: string[] = [];
      const bEntered = b.enter({ ...quiet, onWaiting: (n) => waitingB.push(`ahead ${n}`) });
      // Let runner-b draw its ticket.
      for (let i = 0; i < 50 && !waitingB.length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(waitingB.length).toBeGreaterThan(0);
      const order: string[] = [];
      const aNewcomer = a.enter({ ...quiet, note: (line) => order.push(line) }).then((leave) => {
        order.push('a2 in');
        return leave;
      });
      await leaveA1();
      const leaveB = await bEntered;
      order.push('b in');
      await leaveB();
      const leaveA2 = await aNewcomer;
      await leaveA2();
      expect(order.filter((x) => x.endsWith(' in'))).toEqual(['b in', 'a2 in']);
      expect(order.some((line) => line.includes('waits for the host'))).toBe(true);
      expect(taken).toEqual(['runner-a', 'runner-b', 'runner-a']);
    },
  );

  it('a judging cancelled while it waits never holds the host', async () => {
    const taken: string[] = [];
    const holder = await acquireHostLock({ file: lockFile, owner: 'holder', pollMs: 20 });
    const a = scheduler('runner-a', 60_000, taken);
    const controller = new AbortController();
    const entering = a.enter({ ...quiet, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(entering).rejects.toBeInstanceOf(JudgingCancelledError);
    await holder.release();
    // Nobody joined the hold runner-a took after the holder left: it let go at once.
    await new Promise((r) => setTimeout(r, 200));
    const next = await acquireHostLock({ file: lockFile, owner: 'next', pollMs: 20 });
    await next.release();
    expect(taken.length).toBeLessThanOrEqual(1);
  });
});
