// One run of a built program on one input, inside the sandbox, in a fresh empty directory: nothing
// a run writes is visible to any later run, so no run can cache for another.
import { lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Counter, Limits, ProcessStats, TestOutcome } from '../../contracts';
import { COUNTER_EVENTS, parsePerfStatCsv, perfStatArgs } from '../measure/perf-stat';
import type { Sandbox, SandboxResult } from '../sandbox/sandbox';

/** Where the program and its input appear inside the sandbox. */
export const SANDBOX_PROGRAM = '/judge/program';
export const SANDBOX_INPUT = '/judge/input.txt';

export interface RunProgramOptions {
  sandbox: Sandbox;
  binary: string;
  input: string;
  /** Parent for the run's fresh directory. */
  workDir: string;
  limits: Limits;
  wallTimeMs: number;
  stdout: 'capture' | 'hash';
  cpu?: number;
  /** Count software events with this perf binary (a path visible inside the sandbox). */
  perf?: string | null;
  signal?: AbortSignal;
}

export interface ProgramRun extends SandboxResult {
  /** perf stat's counters; empty when perf was not used. */
  counters: Record<string, Counter>;
}

/** perf's CSV, written inside the run's directory (so only informational: the run could touch it). */
const PERF_FILE = '.perf-stat.csv';

export async function runProgram(options: RunProgramOptions): Promise<ProgramRun> {
  const runDir = await mkdtemp(path.join(options.workDir, 'run-'));
  const program = [SANDBOX_PROGRAM, SANDBOX_INPUT];
  const argv = options.perf
    ? perfStatArgs(options.perf, COUNTER_EVENTS, path.join(runDir, PERF_FILE), program)
    : program;
  try {
    const result = await options.sandbox.run({
      command: argv[0]!,
      args: argv.slice(1),
      workDir: runDir,
      readOnly: [
        { host: options.binary, sandbox: SANDBOX_PROGRAM },
        { host: options.input, sandbox: SANDBOX_INPUT },
      ],
      env: { PATH: '/usr/bin:/bin', HOME: runDir, LC_ALL: 'C' },
      stdout: options.stdout,
      ...(options.cpu !== undefined ? { cpu: options.cpu } : {}),
      limits: {
        wallTimeMs: options.wallTimeMs,
        memoryBytes: options.limits.memory,
        processes: options.limits.processes,
        outputBytes: options.limits.outputBytes,
        fileBytes: options.limits.fileBytes,
      },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return {
      ...result,
      counters: options.perf ? await readCounters(path.join(runDir, PERF_FILE)) : {},
    };
  } finally {
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function readCounters(file: string): Promise<Record<string, Counter>> {
  try {
    // Never follow a link the untrusted run may have planted in its directory.
    const s = await lstat(file);
    if (!s.isFile() || s.size > 64 * 1024) return {};
    return parsePerfStatCsv(await readFile(file, 'utf8'));
  } catch {
    return {};
  }
}

/** How a run ended, before its output is compared: a limit, a crash, or a clean exit ('passed'). */
export function classifyRun(run: SandboxResult): {
  outcome: Exclude<TestOutcome, 'skipped'>;
  message: string;
} {
  switch (run.limitExceeded) {
    case 'time':
      return {
        outcome: 'time-limit',
        message: `killed after ${(run.wallTimeMs / 1000).toFixed(2)} s (time limit)`,
      };
    case 'memory':
      return { outcome: 'memory-limit', message: 'exceeded the memory limit' };
    case 'output':
      return { outcome: 'output-limit', message: `printed more than the output limit` };
    case 'file-size':
      return { outcome: 'output-limit', message: 'wrote a file larger than the file-size limit' };
    case 'processes':
      return {
        outcome: 'runtime-error',
        message: 'exceeded the process limit (the solution must be single-threaded)',
      };
    case null:
      break;
  }
  if (run.signal)
    return { outcome: 'runtime-error', message: `killed by ${run.signal}${stderrTail(run)}` };
  if (run.exitCode !== 0)
    return { outcome: 'runtime-error', message: `exit code ${run.exitCode}${stderrTail(run)}` };
  return { outcome: 'passed', message: '' };
}

function stderrTail(run: SandboxResult): string {
  const text = run.stderr.trim();
  return text ? `; stderr: ${text.slice(-300)}` : '';
}

export function processStats(run: SandboxResult): ProcessStats {
  const cpuMs = run.userTimeMs + run.sysTimeMs;
  return {
    wallMs: run.wallTimeMs,
    userMs: run.userTimeMs,
    sysMs: run.sysTimeMs,
    maxRssBytes: run.maxRssBytes,
    minorFaults: run.minorFaults,
    majorFaults: run.majorFaults,
    voluntaryContextSwitches: run.voluntaryContextSwitches,
    involuntaryContextSwitches: run.involuntaryContextSwitches,
    cpuUtilization: run.wallTimeMs > 0 ? cpuMs / run.wallTimeMs : 0,
  };
}
