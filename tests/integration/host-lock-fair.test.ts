// The host lock's fairness between real processes: takers are served in the order they asked, a
// holder that asks again queues behind those already waiting, and a holder or waiter killed with
// -9 never blocks the others.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { acquireHostLock, hostLockQueueDir } from '../../runner/service/host-lock';

const TAKER = path.join(REPO_ROOT, 'tests/fixtures/host-lock/taker.ts');

interface TakerEvent {
  event: 'queue' | 'took' | 'released';
  owner: string;
  at: number;
  round: number;
  ahead?: number;
}

interface Taker {
  child: ChildProcess;
  events: TakerEvent[];
  exited: Promise<number | null>;
  /** Resolves once an event matching `test` was printed. */
  when(test: (e: TakerEvent) => boolean): Promise<TakerEvent>;
}

let dir: string;
const started: Taker[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-fair-lock-'));
});

afterAll(async () => {
  for (const t of started) if (t.child.exitCode === null) t.child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

function startTaker(file: string, owner: string, rounds: number, holdMs: number): Taker {
  // One process (node with tsx's loader, not the tsx wrapper), so kill -9 reaches the lock's owner.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', TAKER, file, owner, String(rounds), String(holdMs)],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const events: TakerEvent[] = [];
  const waiters: { test: (e: TakerEvent) => boolean; resolve: (e: TakerEvent) => void }[] = [];
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const event = JSON.parse(buffer.slice(0, nl)) as TakerEvent;
      buffer = buffer.slice(nl + 1);
      events.push(event);
      for (const w of waiters.filter((w) => w.test(event))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code) console.error(`${owner}: ${stderr}`);
      resolve(code);
    }),
  );
  const taker: Taker = {
    child,
    events,
    exited,
    when: (test) => {
      const seen = events.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
  started.push(taker);
  return taker;
}

function takes(takers: Taker[]): TakerEvent[] {
  return takers
    .flatMap((t) => t.events.filter((e) => e.event === 'took'))
    .sort((a, b) => a.at - b.at);
}

describe('fair host lock (real processes)', () => {
  it('serves waiters in the order they asked, each behind the ones queued before it', async () => {
    const file = path.join(dir, 'order.lock');
    const holder = await acquireHostLock({ file, owner: 'test' });
    const waiters: Taker[] = [];
    for (const [i, owner] of ['w1', 'w2', 'w3'].entries()) {
      const taker = startTaker(file, owner, 1, 50);
      // Each one queued (its ticket drawn) before the next starts: that is the order to keep.
      const queued = await taker.when((e) => e.event === 'queue');
      expect(queued.ahead).toBe(i + 1);
      waiters.push(taker);
    }
    await holder.release();
    await Promise.all(waiters.map((w) => w.exited));
    expect(takes(waiters).map((e) => e.owner)).toEqual(['w1', 'w2', 'w3']);
    // Nothing left behind: every ticket was removed with its lock.
    expect(await readdir(hostLockQueueDir(file))).toEqual([]);
  }, 60_000);

  it('does not let a holder that asks again at once starve the others', async () => {
    const file = path.join(dir, 'starve.lock');
    const start = await acquireHostLock({ file, owner: 'test' });
    // Three runners, each judging 4 jobs back to back (taking the lock again at once), queued a, b, c.
    const runners: Taker[] = [];
    for (const owner of ['a', 'b', 'c']) {
      const runner = startTaker(file, owner, 4, 150);
      await runner.when((e) => e.event === 'queue');
      runners.push(runner);
    }
    await start.release();
    const codes = await Promise.all(runners.map((r) => r.exited));
    expect(codes).toEqual([0, 0, 0]);
    // Each one asking again queues behind the two already waiting: strict turns.
    expect(
      takes(runners)
        .map((e) => e.owner)
        .join(' '),
    ).toBe('a b c a b c a b c a b c');
    // And the lock is never held twice at once.
    const events = runners
      .flatMap((r) => r.events.filter((e) => e.event !== 'queue'))
      // Within one millisecond a release comes first: 'released' is printed before the release.
      .sort((a, b) => a.at - b.at || Number(a.event === 'took') - Number(b.event === 'took'));
    let held = 0;
    for (const e of events) {
      held += e.event === 'took' ? 1 : -1;
      expect(held).toBeLessThanOrEqual(1);
    }
  }, 120_000);

  it('moves on when the holder or a waiter is killed with -9', async () => {
    const file = path.join(dir, 'killed.lock');
    const holder = startTaker(file, 'holder', 1, 60_000);
    await holder.when((e) => e.event === 'took');
    const doomed = startTaker(file, 'doomed-waiter', 1, 50);
    await doomed.when((e) => e.event === 'queue');
    const patient = startTaker(file, 'patient', 1, 50);
    const queued = await patient.when((e) => e.event === 'queue');
    expect(queued.ahead).toBe(2);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    holder.child.kill('SIGKILL');
    await holder.exited;
    // The dead holder's ticket and lock and the dead waiter's ticket are stale: patient goes next.
    await patient.when((e) => e.event === 'took');
    expect(await patient.exited).toBe(0);
    expect(await readdir(hostLockQueueDir(file))).toEqual([]);
  }, 60_000);
});
