// The windows-amd target judged for real, emulated: MinGW-w64 builds, the Win32 job helper and the
// programs run under Wine inside bubblewrap (runner/windows/). Small inputs and a representative
// subset of the self-judging submissions (one per verdict family: each Wine judging costs 10-30 s
// on this 2-core machine, and the Linux self-judge test already covers every patch's logic). A
// faster patch accepted with its runs under Wine is windows-e2e.test.ts's: its Windows runner
// judges one, and the test checks that result in full.
import { UnavailableError } from '../../contracts';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { createSandbox } from '../../runner/sandbox';
import { type Sandbox } from '../../runner/sandbox/sandbox';
import { WineSandbox } from '../../runner/windows/wine-sandbox';
import { judgeForTest, TEST_DATA_DIR } from '../helpers/judging';

const execFileAsync = promisify(execFile);
const SUBMISSIONS = path.join(REPO_ROOT, 'challenges/wordcount/submissions');
const patch = (id: string) => readFileSync(path.join(SUBMISSIONS, `${id}.patch`), 'utf8');
/**
 * The verdict a submission gets on windows-amd when it is not its folder's (Linux) verdict.
 * - posix-mmap: sys/mman.h and unistd.h do not exist on Windows.
 * - baseline-copy is not an exception any more: the baseline opened the input in text mode, and the
 *   Windows C runtime (MSVC's and the msvcrt MinGW uses alike) stops a text-mode read at byte 0x1A
 *   (Ctrl-Z), which the separators/other-control-bytes case contains. Since challenge version 2 it
 *   opens it with std::ios::binary (runner/windows/README.md); a solution that still reads in text
 *   mode fails that case on Windows, rightly.
 * - null-pointer-write is not in the subset: GCC deletes its store through a null pointer (the UB
 *   is compiled away; clang keeps it), so under MinGW it prints nothing and is a WRONG_ANSWER.
 */
const WINDOWS_VERDICTS: Record<string, string> = {
  'accepted/posix-mmap': 'BUILD_ERROR',
};
const LIMITS = { memory: 512 * 2 ** 20, testRunSeconds: 4 };
/** The infinite loop spins to the limit on its first test: a second of it shows the limit too. */
const TIME_LIMITED = { ...LIMITS, testRunSeconds: 1 };
/**
 * The memory bomb fills its limit page by page under Wine, pinned to one CPU it shares with the
 * rest of a busy host: 512 MiB in 4 s ended as a time limit at load 8-18 (3 of 4 runs, seen
 * 2026-12-06). The build shares the memory limit (MinGW's cc1plus needs more than 128 MiB), so the
 * time limit leaves room for a busy host instead.
 */
const MEMORY_LIMITED = { ...LIMITS, testRunSeconds: 15 };
const limitsFor = (verdict: string) =>
  verdict === 'TIME_LIMIT_EXCEEDED'
    ? TIME_LIMITED
    : verdict === 'MEMORY_LIMIT_EXCEEDED'
      ? MEMORY_LIMITED
      : LIMITS;

/**
 * Real Wine cannot be made to stall on demand, so the Linux sandbox under it gets a wall-time
 * backstop far shorter than Wine's start (about 0.2 s): Wine is stopped before its job helper can
 * report, which is what the backstop sees when Wine or the helper stalls. Builds are untouched.
 */
function wineStallingSandbox(linux: Sandbox): Sandbox {
  return {
    kind: linux.kind,
    check: () => linux.check(),
    run: (req) =>
      linux.run(
        req.command === '/usr/bin/wine'
          ? { ...req, limits: { ...req.limits, wallTimeMs: 10 } }
          : req,
      ),
  };
}

describe('windows-amd judged emulated', () => {
  it('accepts the baseline itself: the same binary, 1.00 untimed, every edge case passing', async () => {
    const id = 'accepted/baseline-copy';
    expect(WINDOWS_VERDICTS[id]).toBeUndefined();
    const result = await judgeForTest(patch(id), {
      target: 'windows-amd',
      benchmarkBytes: 1 << 20,
      publicBytes: null,
    });
    expect(result.verdict, result.message).toBe('ACCEPTED');
    // Built from the same code with the static runtime and no PE timestamp: identical binaries.
    expect(result.stages.build!.identicalBinaries).toBe(true);
    // Binary-mode input: byte 0x1A (separators/other-control-bytes) no longer ends the read.
    const cases = result.stages.test!.cases;
    expect(cases.map((c) => `${c.group}/${c.name}`)).toContain('separators/other-control-bytes');
    expect(cases.filter((c) => c.outcome !== 'passed')).toEqual([]);
    const measure = result.stages.measure!;
    expect(measure.estimate!.speedup).toBe(1);
    expect(measure.estimate!.stopReason).toBe('identical-binaries');
    expect(measure.runs).toHaveLength(0);
  }, 240_000);

  const cases: [string, string][] = [
    // The build-error family: a MinGW build that fails on Windows only (syntax errors fail alike
    // on every target: self-judge.test.ts).
    ['accepted/posix-mmap', 'BUILD_ERROR'],
    ['rejected/touches-main-cpp', 'REJECTED'],
    ['runtime_error/exit-code-3', 'RUNTIME_ERROR'],
    ['time_limit_exceeded/infinite-loop', 'TIME_LIMIT_EXCEEDED'],
    ['memory_limit_exceeded/allocates-64-gib', 'MEMORY_LIMIT_EXCEEDED'],
    ['wrong_answer/ordering-ties-ignore-case', 'WRONG_ANSWER'],
  ];
  it.each(cases)(
    '%s gets %s',
    async (id, verdict) => {
      expect(WINDOWS_VERDICTS[id] ?? id.split('/')[0]!.toUpperCase()).toBe(verdict);
      const result = await judgeForTest(patch(id), {
        target: 'windows-amd',
        limits: limitsFor(verdict),
        benchmarkBytes: 1 << 20,
        publicBytes: null,
      });
      expect(result.verdict, result.message).toBe(verdict);
      if (id === 'accepted/posix-mmap') expect(result.message).toMatch(/sys\/mman\.h/);
      if (verdict === 'WRONG_ANSWER') {
        const failed = new Set(
          result.stages.test!.cases.filter((c) => c.outcome !== 'passed').map((c) => c.group),
        );
        expect([...failed]).toEqual(['ordering']);
      }
    },
    240_000,
  );
});

describe("the job helper's limits under Wine", () => {
  let dir: string;
  let exe: string;
  const sandbox = new WineSandbox({ linux: createSandbox(), dataDir: TEST_DATA_DIR });
  const limits = {
    wallTimeMs: 3_000,
    memoryBytes: 256 * 2 ** 20,
    processes: 4,
    outputBytes: 1 << 20,
    fileBytes: 1 << 20,
  };
  const run = async (mode: string, wallTimeMs = limits.wallTimeMs) => {
    const work = await mkdtemp(path.join(dir, 'run-'));
    return sandbox.run({
      command: '/judge/program',
      args: [mode],
      workDir: work,
      readOnly: [{ host: exe, sandbox: '/judge/program' }],
      stdout: 'capture',
      limits: { ...limits, wallTimeMs },
    });
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-wine-limits-'));
    await execFileAsync('chmod', ['755', dir]);
    exe = path.join(dir, 'limit-bombs.exe');
    await execFileAsync('x86_64-w64-mingw32-gcc', [
      '-O2',
      '-static',
      '-o',
      exe,
      path.join(REPO_ROOT, 'tests/fixtures/windows/limit-bombs.c'),
    ]);
    await sandbox.check();
  }, 180_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs a program and reports its exit, wall time and memory', async () => {
    const r = await run('ok');
    expect(r).toMatchObject({ exitCode: 0, signal: null, limitExceeded: null });
    // printf in the C runtime's text mode: \n is written as \r\n on Windows.
    expect(r.stdout?.toString()).toBe('ok\r\n');
    expect(r.wallTimeMs).toBeGreaterThan(0);
    expect(r.maxRssBytes).toBeGreaterThan(0);
  });

  it('names a crash by its exception', async () => {
    const r = await run('segv');
    expect(r).toMatchObject({
      exitCode: null,
      signal: 'EXCEPTION_ACCESS_VIOLATION',
      limitExceeded: null,
    });
  });

  it('stops a memory bomb at the memory limit', async () => {
    const r = await run('mem');
    expect(r.limitExceeded).toBe('memory');
    expect(r.maxRssBytes).toBeLessThan(limits.memoryBytes + (256 << 20));
  });

  it('stops a spinning program at the time limit', async () => {
    // It spins until stopped: a second shows the limit as well as the others' three.
    const wallTimeMs = 1_000;
    const r = await run('loop', wallTimeMs);
    expect(r.limitExceeded).toBe('time');
    expect(r.wallTimeMs).toBeGreaterThanOrEqual(wallTimeMs);
    expect(r.wallTimeMs).toBeLessThan(wallTimeMs + 2_000);
  });

  it('stops a process bomb at the process limit', async () => {
    const r = await run('fork');
    expect(r.limitExceeded).toBe('processes');
    expect(r.wallTimeMs).toBeLessThan(limits.wallTimeMs);
  });

  it('a Wine stopped by the backstop before its helper reports is the platform’s fault', async () => {
    const stalled = new WineSandbox({
      linux: wineStallingSandbox(createSandbox()),
      dataDir: TEST_DATA_DIR,
    });
    const work = await mkdtemp(path.join(dir, 'run-'));
    const running = stalled.run({
      command: '/judge/program',
      args: ['ok'],
      workDir: work,
      readOnly: [{ host: exe, sandbox: '/judge/program' }],
      stdout: 'capture',
      limits,
    });
    await expect(running).rejects.toThrow(UnavailableError);
    await expect(running).rejects.toThrow(/Wine did not finish .* the emulation stalled/);
  });
  it('runs the program again when Wine fails to create its process, and only then', async () => {
    // Wine's ERROR_INTERNAL_ERROR cannot be caused on demand: the Linux sandbox under Wine answers
    // the first runs as Wine does when it happens (the job helper's exit 126 and its line), then
    // lets Wine run for real. Any other start failure is not Wine's and is not retried.
    const failingFirst = (times: number, error: number): Sandbox & { runs: number } => {
      const linux = createSandbox();
      const fake = {
        kind: linux.kind,
        runs: 0,
        check: () => linux.check(),
        run: async (req: Parameters<Sandbox['run']>[0]) => {
          if (req.command !== '/usr/bin/wine' || fake.runs++ >= times) return linux.run(req);
          const real = await linux.run({ ...req, args: ['--version'] });
          const stderr = `job-helper: cannot start the program (error ${error})\n`;
          return { ...real, exitCode: 126, stderr, stderrBytes: stderr.length };
        },
      };
      return fake;
    };
    const runWith = async (linux: Sandbox) => {
      const work = await mkdtemp(path.join(dir, 'run-'));
      return new WineSandbox({ linux, dataDir: TEST_DATA_DIR }).run({
        command: '/judge/program',
        args: ['ok'],
        workDir: work,
        readOnly: [{ host: exe, sandbox: '/judge/program' }],
        stdout: 'capture',
        limits,
      });
    };
    const twice = failingFirst(2, 1359);
    expect((await runWith(twice)).stdout?.toString()).toBe('ok\r\n');
    expect(twice.runs).toBe(3);
    const always = failingFirst(3, 1359);
    await expect(runWith(always)).rejects.toThrow(/cannot start the program \(error 1359\)/);
    expect(always.runs).toBe(3);
    const notWine = failingFirst(1, 2);
    await expect(runWith(notWine)).rejects.toThrow(/cannot start the program \(error 2\)/);
    expect(notWine.runs).toBe(1);
  });
});

describe('isolation between runs under Wine', () => {
  let dir: string;
  let exe: string;
  const sandbox = new WineSandbox({ linux: createSandbox(), dataDir: TEST_DATA_DIR });
  const limits = {
    wallTimeMs: 10_000,
    memoryBytes: 256 * 2 ** 20,
    processes: 4,
    outputBytes: 1 << 20,
    fileBytes: 1 << 20,
  };
  /** The command lines (argv) of this host's processes that hold `token`. */
  const holding = (token: string) =>
    readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        } catch {
          return []; // gone meanwhile
        }
      })
      .filter((argv) => argv.includes(token));

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-wine-isolation-'));
    await execFileAsync('chmod', ['755', dir]);
    exe = path.join(dir, 'prefix-planter.exe');
    await execFileAsync('x86_64-w64-mingw32-gcc', [
      '-O2',
      '-static',
      '-o',
      exe,
      path.join(REPO_ROOT, 'tests/fixtures/windows/prefix-planter.c'),
    ]);
    await sandbox.check();
  }, 180_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a run leaves no file, registry key or process for the next run, and cannot write Wine’s installation', async () => {
    // Both runs in one folder (the judge gives each its own): even so, each has its own prefix.
    const work = await mkdtemp(path.join(dir, 'run-'));
    const run = (args: string[]) =>
      sandbox.run({
        command: '/judge/program',
        args,
        workDir: work,
        readOnly: [{ host: exe, sandbox: '/judge/program' }],
        stdout: 'capture',
        limits,
      });
    const token = `perfjudge-planted-${randomBytes(6).toString('hex')}`;
    let seenRunning = false;
    const watch = setInterval(() => {
      seenRunning ||= holding(token).some((argv) => argv[argv.indexOf(token) - 1] === 'sleep');
    }, 100);
    const planted = await run(['plant', token]).finally(() => clearInterval(watch));
    // C:\windows is the read-only master's (access denied); the user's folders and the registry
    // are writable, and the copy of itself really started (outside the job where Wine allows it).
    expect(planted.stdout?.toString().split('\r\n')).toEqual([
      'system32-dll failed 5',
      'temp-file ok',
      'registry-key ok',
      'process ok',
      '',
    ]);
    expect(seenRunning).toBe(true);
    // The sandbox's end killed it with everything else of the run.
    expect(holding(token)).toEqual([]);
    const checked = await run(['check']);
    expect(checked.stdout?.toString().split('\r\n')).toEqual([
      'system32-dll absent',
      'temp-file absent',
      'registry-key absent',
      '',
    ]);
    const { master } = await sandbox.prepare();
    expect(existsSync(path.join(master, 'drive_c/windows/system32/perfjudge-planted.dll'))).toBe(
      false,
    );
  }, 60_000);
});

describe('a judging whose Wine stalls', () => {
  it('ends as JUDGE_ERROR (retried by the queue), never as a time limit of the contestant', async () => {
    const result = await judgeForTest(patch('accepted/fast-hash-table'), {
      target: 'windows-amd',
      benchmarkBytes: 1 << 20,
      publicBytes: null,
      limits: LIMITS,
      sandbox: wineStallingSandbox(createSandbox()),
    });
    expect(result.verdict, result.message).toBe('JUDGE_ERROR');
    expect(result.message).toMatch(/the emulation stalled/);
    // It got as far as running a program: the build (MinGW on Linux) was not affected.
    expect(result.stages.build?.solution.ok).toBe(true);
  }, 120_000);
});
