// Counters on this host, through the real sandbox: timed runs count with the sandbox's own
// perf_event_open (no perf binary), software counters count, hardware ones are reported as
// unsupported where the host has no PMU (never 0); the perf binary's formats and Top-Down probe
// (the untimed profile run still uses perf) say why Top-Down is missing.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterSchema } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { runProgram } from '../../runner/sandbox/run-program';
import { compareCounters, deriveMetrics } from '../../runner/measure/derived-metrics';
import {
  COUNTER_EVENTS,
  HARDWARE_EVENTS,
  findPerf,
  parsePerfStatCsv,
  parsePerfStatJsonOutput,
} from '../../runner/measure/perf-stat';
import { detectTopdownSupport } from '../../runner/measure/topdown';
import { createSandbox } from '../../runner/sandbox';

const execFileAsync = promisify(execFile);
const sandbox = createSandbox('bubblewrap');
/** The kernel lists a core PMU here when the host has one (bare metal, or a VM with a vPMU). */
const HAS_PMU = ['cpu', 'cpu_core', 'cpu_atom'].some((p) =>
  existsSync(`/sys/bus/event_source/devices/${p}`),
);

// Reads its input and spins a little, so every software counter has something to count.
const WORKER = `#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  unsigned long sum = 0; int ch;
  while ((ch = fgetc(f)) != EOF) sum = sum * 31 + (unsigned)ch;
  char *block = malloc(8 << 20);
  for (int i = 0; i < (8 << 20); i += 4096) block[i] = (char)i;
  printf("%lu %d\\n", sum, block[4096]);
  return 0;
}
`;
const CRASHER = `#include <stdio.h>
int main(void) { puts("partial"); fflush(stdout); volatile int *p = 0; return *p; }
`;

let work = '';
let perfBinary: string | null = null;
let paranoid = 2;
/** Counted only in the kernel: an unprivileged sandbox past paranoid 1 cannot count them. */
const KERNEL_ONLY = new Set(['context-switches', 'cpu-migrations']);

beforeAll(async () => {
  await sandbox.check();
  perfBinary = await findPerf();
  paranoid = Number((await readFile('/proc/sys/kernel/perf_event_paranoid', 'utf8')).trim());
  work = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-perf-test-'));
  // The sandbox's unprivileged user must be able to reach the run directories below.
  await chmod(work, 0o755);
  await writeFile(path.join(work, 'worker.c'), WORKER);
  await writeFile(path.join(work, 'crasher.c'), CRASHER);
  await execFileAsync('cc', ['-O1', '-o', path.join(work, 'worker'), path.join(work, 'worker.c')]);
  await execFileAsync('cc', [
    '-O1',
    '-o',
    path.join(work, 'crasher'),
    path.join(work, 'crasher.c'),
  ]);
  await writeFile(path.join(work, 'input.txt'), 'word '.repeat(200_000));
  await mkdir(path.join(work, 'runs'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * The perf binary, for the tests of what we make of its output (the timed runs above count without
 * it). scripts/install-system-deps.sh installs it; a host without it fails here, saying so.
 */
function perf(): string {
  if (!perfBinary) throw new Error('perf does not count on this host: install linux-perf');
  return perfBinary;
}

async function runCounted(binary: string) {
  const { manifest } = await loadChallenge('wordcount');
  return runProgram({
    sandbox,
    binary,
    input: path.join(work, 'input.txt'),
    workDir: path.join(work, 'runs'),
    limits: manifest.limits,
    wallTimeMs: 20_000,
    stdout: 'capture',
    cpu: os.cpus().length - 1,
    counters: true,
  });
}

describe('counters through runProgram (sandboxed, unprivileged)', () => {
  it('counts every software event and reports hardware ones honestly', async () => {
    const run = await runCounted(path.join(work, 'worker'));
    expect(run.exitCode).toBe(0);
    expect(run.stdout?.toString()).toMatch(/^\d+ 0\n$/);
    expect(Object.keys(run.counters).sort()).toEqual([...COUNTER_EVENTS].sort());
    for (const counter of Object.values(run.counters)) counterSchema.parse(counter);
    for (const name of ['task-clock', 'page-faults', 'minor-faults', 'major-faults']) {
      expect(run.counters[name]?.status, name).toBe('counted');
      expect(run.counters[name]?.runningPercent, name).toBe(100);
    }
    // perf stat showed these as 0 (`:u`); the sandbox says it cannot count them, except a pinned
    // run's migrations, which the root helper counts on bwrap's tree (0: the pinning holds).
    for (const name of KERNEL_ONLY) {
      if (name === 'cpu-migrations' && process.getuid?.() === 0) {
        expect(run.counters[name], name).toMatchObject({ status: 'counted', value: 0 });
        continue;
      }
      expect(run.counters[name]?.status, name).toBe(paranoid >= 2 ? 'unsupported' : 'counted');
    }
    expect(run.counters['task-clock']?.unit).toBe('msec');
    expect(run.counters['task-clock']?.value).toBeGreaterThan(0);
    // 8 MiB touched page by page: at least 2048 faults.
    expect(run.counters['page-faults']?.value).toBeGreaterThanOrEqual(2048);
    for (const name of HARDWARE_EVENTS) {
      const counter = run.counters[name]!;
      if (HAS_PMU) expect(['counted', 'unsupported'], name).toContain(counter.status);
      else
        expect(counter, name).toEqual({
          value: null,
          unit: '',
          status: 'unsupported',
          runningPercent: null,
        });
    }
    const derived = deriveMetrics(run.counters, {
      wallMs: run.wallTimeMs,
      userMs: run.userTimeMs,
      sysMs: run.sysTimeMs,
      maxRssBytes: run.maxRssBytes,
      minorFaults: run.minorFaults,
      majorFaults: run.majorFaults,
      voluntaryContextSwitches: run.voluntaryContextSwitches,
      involuntaryContextSwitches: run.involuntaryContextSwitches,
      cpuUtilization: 0,
    });
    expect(derived['cpu-utilization']?.status).toBe('counted');
    expect(derived['cpu-utilization']?.value).toBeGreaterThan(0);
    if (!HAS_PMU) expect(derived.ipc).toMatchObject({ value: null, status: 'unsupported' });
  });

  it('reports a program killed by SIGSEGV as such, with its counters', async () => {
    const run = await runCounted(path.join(work, 'crasher'));
    // perf 6.1 around the program turned this into exit 0.
    expect(run).toMatchObject({ exitCode: null, signal: 'SIGSEGV' });
    expect(run.stdout?.toString()).toBe('partial\n');
    expect(run.counters['task-clock']?.status).toBe('counted');
    expect(run.counters['page-faults']?.value).toBeGreaterThan(0);
    expect(Object.keys(run.counters)).toHaveLength(COUNTER_EVENTS.length);
  });

  it('compares two real runs: software counters side by side, hardware unsupported', async () => {
    const toRun = async (side: 'baseline' | 'solution') => {
      const r = await runCounted(path.join(work, 'worker'));
      return {
        side,
        kind: 'timed' as const,
        pair: 0,
        stats: {
          wallMs: r.wallTimeMs,
          userMs: r.userTimeMs,
          sysMs: r.sysTimeMs,
          maxRssBytes: r.maxRssBytes,
          minorFaults: r.minorFaults,
          majorFaults: r.majorFaults,
          voluntaryContextSwitches: r.voluntaryContextSwitches,
          involuntaryContextSwitches: r.involuntaryContextSwitches,
          cpuUtilization: 1,
        },
        outputBytes: r.stdoutBytes,
        outputSha256: r.stdoutSha256,
        correct: true,
        exitCode: r.exitCode,
        signal: r.signal,
        counters: r.counters,
      };
    };
    const rows = compareCounters([await toRun('baseline')], [await toRun('solution')]);
    const faults = rows.find((r) => r.name === 'page-faults')!;
    expect(faults.status).toBe('counted');
    expect(faults.ratio).toBeGreaterThan(0.5);
    expect(faults.ratio).toBeLessThan(2);
    if (!HAS_PMU)
      expect(rows.find((r) => r.name === 'cycles')).toMatchObject({
        status: 'unsupported',
        baseline: null,
        solution: null,
        ratio: null,
      });
  });
});

describe('perf stat formats on this host', () => {
  it('gives the same counters in CSV and JSON (-j)', async () => {
    const csvFile = path.join(work, 'all.csv');
    const jsonFile = path.join(work, 'all.json');
    const events = COUNTER_EVENTS.join(',');
    await execFileAsync(perf(), ['stat', '-x', ',', '-o', csvFile, '-e', events, '--', 'true']);
    await execFileAsync(perf(), ['stat', '-j', '-o', jsonFile, '-e', events, '--', 'true']);
    const csv = parsePerfStatCsv(await readFile(csvFile, 'utf8'));
    const json = parsePerfStatJsonOutput(await readFile(jsonFile, 'utf8')).counters;
    expect(Object.keys(json)).toEqual(Object.keys(csv));
    for (const name of COUNTER_EVENTS) expect(json[name]?.status, name).toBe(csv[name]?.status);
  });
});

describe('detectTopdownSupport', () => {
  it('answers with a group or a reason, and on a host without PMU says so', async () => {
    const support = await detectTopdownSupport(perf());
    if (!HAS_PMU)
      expect(support).toEqual({ group: null, reason: 'unsupported: no PMU on this host' });
    else expect(support.group !== null || support.reason.startsWith('unsupported:')).toBe(true);
  });

  it('asks perf for the group when a PMU is listed, and explains its absence', async () => {
    // A PMU directory with a core PMU gets past the first check, so perf itself is asked.
    const devices = path.join(work, 'devices');
    await mkdir(path.join(devices, 'cpu'), { recursive: true });
    const groups = (await execFileAsync(perf(), ['list', 'metricgroups'])).stdout
      .split('\n')
      .map((l) => l.trim());
    const amd = await detectTopdownSupport(perf(), {
      vendor: 'AuthenticAMD',
      pmuDevicesDir: devices,
    });
    if (!groups.includes('PipelineL1'))
      expect(amd).toEqual({
        group: null,
        reason: 'unsupported: this perf has no PipelineL1 metric group for this CPU model',
      });
    else
      expect(amd.group === 'PipelineL1' || amd.reason?.startsWith('unsupported: trial')).toBe(true);
    expect(
      await detectTopdownSupport(perf(), { vendor: 'CentaurHauls', pmuDevicesDir: devices }),
    ).toEqual({ group: null, reason: 'unsupported: no Top-Down metric group for CentaurHauls' });
    const broken = await detectTopdownSupport(path.join(work, 'no-such-perf'), {
      vendor: 'GenuineIntel',
      pmuDevicesDir: devices,
    });
    expect(broken.group).toBeNull();
    expect(broken.reason).toMatch(/^unsupported: perf list failed/);
  });
});
