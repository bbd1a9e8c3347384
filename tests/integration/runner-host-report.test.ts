// A runner's start-up host report: measured in the background under the host lock (a judging on
// this machine waits for it, and it waits for a judging), then carried by every heartbeat, where
// the organizer console reads it.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostReport } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { createSandbox } from '../../runner/sandbox';
import { acquireHostLock, listRunners, startHeartbeat } from '../../runner/service';
import { startHostProbe } from '../../runner/service/host-probe';
import { createTestQueues, type TestQueues } from '../helpers/queue';
import { TEST_DATA_DIR } from '../helpers/judging';

let dir: string;
let queues: TestQueues;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-host-report-'));
  // A work root, as the runner prepares it: the sandbox user must be able to traverse it.
  await chmod(dir, 0o755);
  queues = await createTestQueues('host-report');
});

afterAll(async () => {
  await queues?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('runner host report', () => {
  it('waits for the host lock, measures, and is published in the heartbeat', async () => {
    const lockFile = path.join(dir, 'judging.lock');
    // A judging holds the lock: the probe must not measure (or disturb) meanwhile.
    const judging = await acquireHostLock({ file: lockFile, owner: 'a judging' });
    const runner = {
      runnerId: 'probe-1',
      target: 'linux-intel' as const,
      hostname: 'h',
      cpuModel: 'cpu',
      cpuVendor: 'AuthenticAMD',
      devMode: true,
      emulated: false,
      startedAt: new Date().toISOString(),
    };
    const beat = startHeartbeat({ redis: queues.redis, prefix: queues.prefix, runner });
    const reports: HostReport[] = [];
    const logs: string[] = [];
    const probe = startHostProbe({
      challenge: await loadChallenge('wordcount'),
      sandbox: createSandbox(),
      dataDir: TEST_DATA_DIR,
      cpu: 1,
      hostLockFile: lockFile,
      owner: 'probe-1',
      workRoot: dir,
      onReport: (r) => {
        reports.push(r);
        beat.setHostReport(r);
      },
      log: (l) => logs.push(l),
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(reports).toEqual([]);
    expect((await listRunners(queues.redis, queues.prefix)).runners[0]!.hostReport).toBeUndefined();
    await judging.release();
    await probe.done;

    expect(reports).toHaveLength(1);
    const report = reports[0]!;
    expect(report.cpu).toBe(1);
    const noiseCheck = report.checks.find((c) => c.id === 'noise')!;
    expect(report.noise, noiseCheck.detail).toMatchObject({ cpu: 1, runs: 7 });
    // Only timing and memory: a runner that started has its tools.
    expect(new Set(report.checks.map((c) => c.group))).toEqual(new Set(['timing', 'memory']));
    expect(logs.join('\n')).toMatch(/^host report \(CPU 1\): (ok|warn|bad); noise wall CV/m);
    const listed = (await listRunners(queues.redis, queues.prefix)).runners[0]!;
    expect(listed.hostReport).toEqual(report);
    await beat.stop();
  }, 300_000);

  it('stops waiting when the runner shuts down', async () => {
    const lockFile = path.join(dir, 'held.lock');
    const judging = await acquireHostLock({ file: lockFile, owner: 'a long judging' });
    const reports: HostReport[] = [];
    const probe = startHostProbe({
      challenge: await loadChallenge('wordcount'),
      sandbox: createSandbox(),
      dataDir: TEST_DATA_DIR,
      hostLockFile: lockFile,
      owner: 'probe-2',
      onReport: (r) => reports.push(r),
      log: () => undefined,
    });
    await probe.stop();
    expect(reports).toEqual([]);
    await judging.release();
  });
});
