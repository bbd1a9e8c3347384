// Counters attached by the sandbox's trusted init (perf_event_open) on the real kernel: software
// events counted and in line with the OS's accounting, hardware ones unsupported on a PMU-less host
// (never 0), a crash still reported as a crash with its counters, no counter fd reachable from the
// program, and no measurable cost to the timed wall time.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterSchema } from '../../contracts';
import { COUNTER_EVENTS, HARDWARE_EVENTS } from '../../runner/measure/perf-stat';
import {
  BubblewrapSandbox,
  type SandboxLimits,
  type SandboxRequest,
  type SandboxResult,
} from '../../runner/sandbox';
import { toCounters } from '../../runner/sandbox/counters';
import { helperBinary } from '../../runner/sandbox/helper-binary';
import { parseHelperReport } from '../../runner/sandbox/run-helper';

const execFileAsync = promisify(execFile);
const sandbox = new BubblewrapSandbox();
const HAS_PMU = ['cpu', 'cpu_core', 'cpu_atom'].some((p) =>
  existsSync(`/sys/bus/event_source/devices/${p}`),
);
const LIMITS: SandboxLimits = {
  wallTimeMs: 10_000,
  memoryBytes: 256 << 20,
  processes: 16,
  outputBytes: 1 << 20,
  fileBytes: 1 << 20,
};
/** Kernel-side events (context switches, migrations) need more than user-space counting. */
const KERNEL_ONLY = ['context-switches', 'cpu-migrations'];

const PROGRAMS: Record<string, string> = {
  // About 150 ms of CPU in user space, and 8 MiB touched page by page (2048 faults at least).
  'spin.c': `#include <stdio.h>
#include <stdlib.h>
int main(void) {
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < 150000000UL; i++) x += i;
  char *block = malloc(8 << 20);
  for (int i = 0; i < (8 << 20); i += 4096) block[i] = (char)i;
  printf("%lu %d\\n", x, block[4096]);
  return 0;
}
`,
  // The CPU time is spent by a child: inherited counters must see it.
  'forker.c': `#include <sys/wait.h>
#include <unistd.h>
int main(void) {
  pid_t p = fork();
  if (p == 0) { volatile unsigned long x = 0; for (unsigned long i = 0; i < 150000000UL; i++) x += i; _exit(0); }
  int st; waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
`,
  'crasher.c': `#include <stdio.h>
int main(void) {
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < 20000000UL; i++) x += i;
  puts("partial"); fflush(stdout);
  volatile int *p = 0; return *p;
}
`,
  // Lists its own open fds (but the directory's), and tries the init's.
  'fds.c': `#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return 2;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d)) continue;
    printf("%s ", e->d_name);
  }
  closedir(d);
  DIR *init = opendir("/proc/1/fd");
  printf("\\ninit:%s\\n", init ? "open" : strerror(errno));
  return 0;
}
`,
  'spin-forever.c': `int main(void) { volatile unsigned long x = 0; for (;;) x++; }
`,
  'trivial.c': `int main(void) { return 0; }
`,
};

let work = '';
let paranoid = 2;

beforeAll(async () => {
  await sandbox.check();
  paranoid = Number((await readFile('/proc/sys/kernel/perf_event_paranoid', 'utf8')).trim());
  work = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-counters-test-'));
  await chmod(work, 0o755);
  for (const [name, source] of Object.entries(PROGRAMS)) {
    const file = path.join(work, name);
    await writeFile(file, source);
    await execFileAsync('cc', ['-O1', '-o', file.replace(/\.c$/, ''), file]);
  }
}, 60_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function run(program: string, overrides: Partial<SandboxRequest> = {}): Promise<SandboxResult> {
  return sandbox.run({
    command: path.join(work, program),
    args: [],
    workDir: work,
    stdout: 'capture',
    cpu: os.cpus().length - 1,
    counters: [...COUNTER_EVENTS],
    limits: LIMITS,
    ...overrides,
  });
}

function cpuMs(r: SandboxResult): number {
  return r.userTimeMs + r.sysTimeMs;
}

/** task-clock counts the command's tree from its exec; rusage also has bwrap's and our init's set-up. */
function expectTaskClockNearRusage(r: SandboxResult): number {
  const taskClock = r.counters!['task-clock']!;
  expect(taskClock.status).toBe('counted');
  expect(taskClock.unit).toBe('msec');
  const gap = cpuMs(r) - taskClock.value!;
  // Never more than the OS saw; less by the set-up (bwrap, our init, and as root the staging of
  // the mount sources the sandbox user could not reach): 10 ms on earlier VMs, 18 ms on this one
  // before the staging, 25 ms with it.
  expect(gap).toBeGreaterThan(-1);
  expect(gap).toBeLessThan(35 + 0.05 * cpuMs(r));
  return gap;
}

describe('sandbox counters (perf_event_open in the trusted init)', () => {
  it('counts software events, task-clock in line with rusage, hardware ones unsupported', async () => {
    const r = await run('spin');
    expect(r.exitCode).toBe(0);
    expect(r.stdout?.toString()).toMatch(/^\d+ 0\n$/);
    expect(Object.keys(r.counters!).sort()).toEqual([...COUNTER_EVENTS].sort());
    for (const counter of Object.values(r.counters!)) counterSchema.parse(counter);

    const gap = expectTaskClockNearRusage(r);
    expect(r.counters!['task-clock']!.value).toBeGreaterThan(20);
    console.log(
      `spin: task-clock ${r.counters!['task-clock']!.value!.toFixed(2)} ms, rusage user+sys ` +
        `${cpuMs(r).toFixed(2)} ms (user ${r.userTimeMs.toFixed(2)}, sys ${r.sysTimeMs.toFixed(2)}), ` +
        `gap ${gap.toFixed(2)} ms; wall ${r.wallTimeMs.toFixed(2)} ms`,
    );
    for (const name of ['task-clock', 'page-faults', 'minor-faults', 'major-faults']) {
      expect(r.counters![name]?.status, name).toBe('counted');
      expect(r.counters![name]?.runningPercent, name).toBe(100);
    }
    // User-space faults only (exclude_kernel), so no more than the OS's count of the whole tree.
    expect(r.counters!['page-faults']!.value).toBeGreaterThanOrEqual(2048);
    expect(r.counters!['page-faults']!.value).toBeLessThanOrEqual(r.minorFaults + r.majorFaults);
    expect(r.counters!['minor-faults']!.value).toBe(r.counters!['page-faults']!.value);

    for (const name of KERNEL_ONLY) {
      // A pinned run's migrations are counted by the outer helper, on bwrap's tree: as root it may
      // count kernel-side events (and pinned, there are none).
      if (name === 'cpu-migrations' && process.getuid?.() === 0) {
        expect(r.counters![name], name).toMatchObject({ status: 'counted', value: 0 });
        continue;
      }
      // Our init runs unprivileged: past paranoid 1 the kernel refuses kernel-side counting.
      if (paranoid >= 2) expect(r.counters![name], name).toMatchObject({ status: 'unsupported' });
      else expect(r.counters![name]?.status, name).toBe('counted');
    }
    for (const name of HARDWARE_EVENTS) {
      const counter = r.counters![name]!;
      if (HAS_PMU) expect(['counted', 'unsupported'], name).toContain(counter.status);
      else
        expect(counter, name).toEqual({
          value: null,
          unit: '',
          status: 'unsupported',
          runningPercent: null,
        });
    }
  });

  it("counts the command's children too (inherit)", async () => {
    const r = await run('forker');
    expect(r.exitCode).toBe(0);
    const gap = expectTaskClockNearRusage(r);
    expect(r.counters!['task-clock']!.value).toBeGreaterThan(20);
    console.log(
      `forker: task-clock ${r.counters!['task-clock']!.value!.toFixed(2)} ms, rusage ${cpuMs(r).toFixed(2)} ms, gap ${gap.toFixed(2)} ms`,
    );
  });

  it('reports a SIGSEGV as the signal it is, with the counters up to the crash', async () => {
    const r = await run('crasher');
    expect(r).toMatchObject({ exitCode: null, signal: 'SIGSEGV', limitExceeded: null });
    expect(r.stdout?.toString()).toBe('partial\n');
    expectTaskClockNearRusage(r);
    expect(r.counters!['task-clock']!.value).toBeGreaterThan(1);
    expect(r.counters!['page-faults']!.value).toBeGreaterThan(0);
  });

  it('keeps its counters through a time limit', async () => {
    const r = await run('spin-forever', { limits: { ...LIMITS, wallTimeMs: 300 } });
    expect(r.limitExceeded).toBe('time');
    expect(r.signal).toBe('SIGKILL');
    expectTaskClockNearRusage(r);
    // Counted up to the kill, not lost with it. How much CPU the spinner got in its 300 ms depends
    // on the host's load (another test's build can take most of it), so only "some" is asserted.
    expect(r.counters!['task-clock']!.status).toBe('counted');
    expect(r.counters!['task-clock']!.value).toBeGreaterThan(10);
  });

  it('leaves the program no fd but 0, 1, 2, and no way into the init that holds the counters', async () => {
    const r = await run('fds');
    expect(r.exitCode).toBe(0);
    const [fds, init] = r.stdout!.toString().split('\n');
    expect(fds!.trim().split(' ').sort()).toEqual(['0', '1', '2']);
    expect(init).toBe('init:Permission denied');
    expect(r.counters!['task-clock']!.status).toBe('counted');
  });

  it('reports every counter as not counted when the command never starts', async () => {
    const r = await run('no-such-program');
    expect(r.exitCode).toBe(127);
    expect(r.counters!['task-clock']).toEqual({
      value: null,
      unit: 'msec',
      status: 'not-counted',
      runningPercent: 0,
    });
  });

  it('gives no counters when none are asked for, and refuses a name it does not know', async () => {
    const r = await run('trivial', { counters: [] });
    expect(r.exitCode).toBe(0);
    expect(r.counters).toBeUndefined();
    await expect(run('trivial', { counters: ['task-clock', 'bogus'] })).rejects.toThrow(
      /invalid sandbox request: counters/,
    );
  });

  it("counts in the static helper too, as a container's init does (the Docker sandbox)", async () => {
    // Unprivileged like the container's helper: it forks the command itself and attaches to it.
    const helper = path.join(work, 'static-helper');
    await copyFile(await helperBinary({ static: true }), helper);
    await chmod(helper, 0o755);
    const report = path.join(work, 'static-report');
    await writeFile(report, '');
    await chmod(report, 0o666);
    const names = ['task-clock', 'page-faults', 'cycles', 'context-switches'];
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    await execFileAsync(
      helper,
      ['--report-file', report, '--counters', names.join(','), '--', path.join(work, 'spin')],
      asNobody,
    );
    const parsed = parseHelperReport(await readFile(report, 'utf8'))!;
    expect(parsed).toMatchObject({ exited: true, exitCode: 0 });
    const counters = toCounters(names, parsed.counters);
    const cpu = (parsed.userUs + parsed.sysUs) / 1e3;
    expect(counters['task-clock']?.status).toBe('counted');
    // Our own child, exec'd straight away: nearly all of the tree's CPU time is the command's.
    expect(Math.abs(cpu - counters['task-clock']!.value!)).toBeLessThan(5 + 0.05 * cpu);
    expect(counters['page-faults']!.value).toBeGreaterThanOrEqual(2048);
    if (!HAS_PMU) expect(counters.cycles?.status).toBe('unsupported');
    if (paranoid >= 2) expect(counters['context-switches']?.status).toBe('unsupported');
    // The command was started without an inner init: the status is the helper's own wait.
    expect(parsed.statusFromInit).toBe(false);
  });
  // What counting adds to a timed run's wall time is a figure, not an assertion (a loaded host
  // moved it past any bound here): `npm run bench -- perf-overhead` prints it side by side.
});
