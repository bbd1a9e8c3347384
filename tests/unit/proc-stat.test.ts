// /proc/stat is parsed twice: by the runner (runner/host/proc-stat.ts: the host's load before a
// judging, the doctor's timing checks) and by the sandbox helper in C (sample_cpu in
// runner/sandbox/sandbox-helper.c: the pinned CPU's busy and steal ticks around every timed run).
// Both read the same recorded texts here, so a change to one's fields shows up as a difference.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { CLOCK_TICKS_PER_SECOND, cpuDelta, parseProcStat } from '../../runner/host/proc-stat';
import { compiledBinary } from '../../runner/sandbox/helper-binary';

const execFileAsync = promisify(execFile);
const FIXTURES = path.join(REPO_ROOT, 'tests/fixtures/host');
const TICK_MS = 1000 / CLOCK_TICKS_PER_SECOND;

/** Every field distinct and nonzero (user nice system idle iowait irq softirq steal guest guest_nice). */
const EVERY_FIELD = [
  'cpu  4404 1202 3303 90009 505 606 707 808 99 11',
  'cpu0 1101 301 1003 45004 205 306 407 508 49 6',
  'cpu1 3303 901 2300 45005 300 300 300 300 50 5',
  'intr 12345 0 0',
  '',
].join('\n');

let dir: string;
let sampleCpu: string;
let everyField: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'proc-stat-'));
  everyField = path.join(dir, 'every-field');
  await writeFile(everyField, EVERY_FIELD);
  // A fresh cache: the entry includes the helper's source, which the cache key does not cover.
  sampleCpu = await compiledBinary(
    {
      source: path.join(FIXTURES, 'sample-cpu.c'),
      name: 'sample-cpu',
      flags: ['-O2', '-Wall', '-std=gnu11'],
      libs: ['-lseccomp'],
    },
    { cacheDir: dir },
  );
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the helper's parser reads for `cpu` in `file`, in ticks; null when it finds no row. */
async function helperSample(file: string, cpu: number) {
  const { stdout } = await execFileAsync(sampleCpu, [file, String(cpu)]);
  const [ok, busy, steal] = stdout.trim().split(' ').map(Number);
  return ok ? { busy: busy!, steal: steal! } : null;
}

/** Both parsers read every CPU of `file` alike; the runner's rows, for more checks. */
async function expectSameReading(file: string) {
  const rows = parseProcStat(await readFile(file, 'utf8'));
  expect(rows.size).toBeGreaterThan(0);
  for (const [cpu, ts] of rows) {
    // The runner counts steal as busy (the CPU was not ours); the helper reports it apart.
    expect(await helperSample(file, cpu)).toEqual({
      busy: (ts.busyMs - ts.stealMs) / TICK_MS,
      steal: ts.stealMs / TICK_MS,
    });
  }
  return rows;
}

describe('the runner and the sandbox helper read /proc/stat alike', () => {
  it.each(['firecracker-vm', 'tuned-intel', 'busy-desktop'])(
    'on the %s recording, every CPU',
    async (host) => {
      await expectSameReading(path.join(FIXTURES, host, 'proc/stat'));
    },
  );

  it('with every field set, guest time left inside user time by both', async () => {
    const rows = await expectSameReading(everyField);
    expect([...rows.keys()]).toEqual([0, 1]);
    // cpu0: user + nice + system + irq + softirq, steal apart; idle and iowait are not busy.
    expect(await helperSample(everyField, 0)).toEqual({
      busy: 1101 + 301 + 1003 + 306 + 407,
      steal: 508,
    });
  });

  it('finds no row for a CPU the text does not have', async () => {
    expect(parseProcStat(EVERY_FIELD).get(2)).toBeUndefined();
    expect(await helperSample(everyField, 2)).toBeNull();
  });
});

describe("the runner's parser", () => {
  it('parses /proc/stat as this VM recorded it', async () => {
    const stat = parseProcStat(await readFile(`${FIXTURES}/firecracker-vm/proc/stat`, 'utf8'));
    expect([...stat.keys()]).toEqual([0, 1]);
    // cpu1 90379 0 25643 37533 1037 0 384 242: busy = all but idle + iowait, in ms (USER_HZ 100).
    expect(stat.get(1)).toEqual({
      busyMs: (90379 + 25643 + 384 + 242) * 10,
      idleMs: (37533 + 1037) * 10,
      stealMs: 2420,
      totalMs: (90379 + 25643 + 37533 + 1037 + 384 + 242) * 10,
    });
  });

  it('computes what a CPU did between two readings, including steal', () => {
    const a = parseProcStat('cpu0 100 0 100 800 0 0 0 10\n');
    const b = parseProcStat('cpu0 150 0 150 900 0 0 0 30\n');
    expect(cpuDelta(a, b, 0)).toEqual({ busyMs: 1200, idleMs: 1000, stealMs: 200, totalMs: 2200 });
    expect(cpuDelta(a, b, 1)).toBeNull();
  });
});
