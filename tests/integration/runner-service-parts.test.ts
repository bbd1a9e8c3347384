// The runner service's parts on their own: the host-wide judging lock (waiting, stale locks of dead
// or reused pids, cancellation), the heartbeat keys on real Redis, and the progress throttle.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JudgingProgress } from '../../contracts';
import {
  acquireHostLock,
  HEARTBEAT_TTL_SECONDS,
  listRunners,
  runnerKey,
  startHeartbeat,
} from '../../runner/service';
import { HostLockAbortedError, processStartTime } from '../../runner/service/host-lock';
import { createJobPublisher } from '../../runner/service/job-publisher';
import { createTestQueues, type TestQueues } from '../helpers/queue';

let dir: string;
let queues: TestQueues;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-runner-parts-'));
  queues = await createTestQueues('runner-parts');
});

afterAll(async () => {
  await queues?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('host lock', () => {
  it('lets one holder at a time in; the next one gets it on release', async () => {
    const file = path.join(dir, 'one-at-a-time.lock');
    const first = await acquireHostLock({ file, owner: 'first' });
    let waited = false;
    let secondHas = false;
    const second = acquireHostLock({
      file,
      owner: 'second',
      pollMs: 20,
      onWait: (holder) => (waited = holder?.owner === 'first'),
    }).then((lock) => {
      secondHas = true;
      return lock;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(waited).toBe(true);
    expect(secondHas).toBe(false);
    await first.release();
    const lock = await second;
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      owner: 'second',
      pid: process.pid,
    });
    await lock.release();
    await expect(readFile(file)).rejects.toThrow(/ENOENT/);
  });

  it('breaks the lock of a dead process, and of a reused pid', async () => {
    const file = path.join(dir, 'stale.lock');
    const dead = await deadPid();
    await writeFile(file, JSON.stringify({ pid: dead, startTime: '1', owner: 'dead', token: 'x' }));
    const lock = await acquireHostLock({ file, owner: 'taker' });
    expect(lock.brokeStale).toMatchObject({ pid: dead, owner: 'dead' });
    await lock.release();

    // Our own pid, but started at another time: the pid was reused, the holder is gone.
    const start = await processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    await writeFile(
      file,
      JSON.stringify({ pid: process.pid, startTime: `${start}0`, owner: 'old', token: 'y' }),
    );
    const again = await acquireHostLock({ file, owner: 'taker' });
    expect(again.brokeStale).toMatchObject({ owner: 'old' });
    await again.release();
  });

  it('stops waiting when cancelled, and never releases a lock it does not hold', async () => {
    const file = path.join(dir, 'cancel.lock');
    const held = await acquireHostLock({ file, owner: 'holder' });
    const controller = new AbortController();
    const waiting = acquireHostLock({
      file,
      owner: 'waiter',
      pollMs: 20,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await expect(waiting).rejects.toBeInstanceOf(HostLockAbortedError);

    // A lock broken and retaken by someone else stays theirs when the old holder releases.
    await writeFile(
      file,
      JSON.stringify({
        pid: process.pid,
        startTime: held.holder.startTime,
        owner: 'other',
        token: 'z',
      }),
    );
    await held.release();
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ owner: 'other' });
  });
});

describe('heartbeat', () => {
  it('writes a key with a TTL that listRunners validates, and deletes it on stop', async () => {
    const runner = {
      runnerId: 'beat-1',
      target: 'linux-intel' as const,
      hostname: 'h',
      cpuModel: 'cpu',
      cpuVendor: 'AuthenticAMD',
      devMode: true,
      emulated: false,
      startedAt: new Date().toISOString(),
    };
    const beat = startHeartbeat({ redis: queues.redis, prefix: queues.prefix, runner });
    beat.setCurrentJob({ judgingId: 'j1', round: 2, since: new Date().toISOString() });
    // Not a heartbeat: reported as invalid, never returned as a runner.
    await queues.redis.set(runnerKey(queues.prefix, 'garbage'), '{"runnerId":1}');

    const key = runnerKey(queues.prefix, 'beat-1');
    let list = await listRunners(queues.redis, queues.prefix);
    for (let i = 0; i < 20 && list.runners[0]?.currentJob === null; i++) {
      await new Promise((r) => setTimeout(r, 50));
      list = await listRunners(queues.redis, queues.prefix);
    }
    expect(list.runners).toHaveLength(1);
    expect(list.runners[0]).toMatchObject({ ...runner, currentJob: { judgingId: 'j1', round: 2 } });
    expect(list.invalid).toEqual([runnerKey(queues.prefix, 'garbage')]);
    const ttl = await queues.redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HEARTBEAT_TTL_SECONDS);

    await beat.stop();
    expect(await queues.redis.exists(key)).toBe(0);
    expect((await listRunners(queues.redis, queues.prefix)).runners).toEqual([]);
  });
});

describe('progress publisher', () => {
  it('sends stage changes and the last event at once, and at most ~2 updates a second otherwise', async () => {
    const sent: JudgingProgress[] = [];
    const logs: string[] = [];
    const job = {
      updateProgress: async (p: unknown) => void sent.push(p as JudgingProgress),
      log: async (line: string) => logs.push(line),
    };
    const publisher = createJobPublisher(job, { judgingId: 'j', round: 0 }, (e) => {
      throw e;
    });
    publisher.progress({ stage: 'build', fraction: 0, message: 'a' });
    for (let i = 1; i <= 50; i++)
      publisher.progress({ stage: 'measure', fraction: i / 100, message: `run ${i}` });
    await new Promise((r) => setTimeout(r, 600));
    publisher.progress({ stage: 'report', fraction: 1, message: 'done' });
    for (let i = 0; i < 1100; i++) publisher.log(i === 0 ? 'x'.repeat(10_000) : `line ${i}`);
    await publisher.flush();

    expect(sent.map((p) => p.message)).toEqual(['a', 'run 1', 'run 50', 'done']);
    expect(sent.every((p) => p.judgingId === 'j' && p.round === 0)).toBe(true);
    expect(logs).toHaveLength(1001);
    expect(logs[0]!.length).toBeLessThan(4100);
    expect(logs.at(-1)).toMatch(/further log lines dropped/);
  });
});
