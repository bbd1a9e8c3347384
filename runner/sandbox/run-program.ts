// One run of a built program on one input, inside the sandbox, in a fresh empty directory: nothing
// a run writes is visible to any later run, so no run can cache for another.
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  COUNTER_NAMES,
  type Counter,
  type Limits,
  type ProcessStats,
  type TestOutcome,
} from '../../contracts';
import type { Sandbox, SandboxResult } from './sandbox';

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
  /**
   * Count every counter of the catalog (COUNTER_NAMES, perf-stat's COUNTER_EVENTS) on the program. The sandbox's trusted side attaches them from outside the
   * program (perf_event_open), so they cost nothing of the timed wall time and cannot be forged.
   */
  counters?: boolean;
  /** Denied syscalls this run may use on top of the challenge's limits.allowSyscalls (perf). */
  allowSyscalls?: string[];
  /** Host files to have wholly in the page cache before the program starts (see SandboxRequest). */
  resident?: string[];
  /**
   * Runs something around the program instead of the program alone (an untimed profiling run:
   * `perf stat -M …`): gets the run's folder and the program's argv, returns the argv to run.
   */
  wrap?: (runDir: string, program: string[]) => string[];
  /** Reads what the run left in its folder, before the folder is removed. */
  collect?: (runDir: string) => Promise<void>;
  signal?: AbortSignal;
}

export interface ProgramRun extends SandboxResult {
  /** One entry per COUNTER_NAMES name when counting; empty otherwise. */
  counters: Record<string, Counter>;
}

export async function runProgram(options: RunProgramOptions): Promise<ProgramRun> {
  const runDir = await mkdtemp(path.join(options.workDir, 'run-'));
  const program = [SANDBOX_PROGRAM, SANDBOX_INPUT];
  const argv = options.wrap ? options.wrap(runDir, program) : program;
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
      cpu: options.cpu,
      counters: options.counters ? [...COUNTER_NAMES] : undefined,
      allowSyscalls: [...(options.limits.allowSyscalls ?? []), ...(options.allowSyscalls ?? [])],
      resident: options.resident,
      limits: {
        wallTimeMs: options.wallTimeMs,
        memoryBytes: options.limits.memory,
        processes: options.limits.processes,
        outputBytes: options.limits.outputBytes,
        fileBytes: options.limits.fileBytes,
      },
      signal: options.signal,
    });
    await options.collect?.(runDir);
    return { ...result, counters: result.counters ?? {} };
  } finally {
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
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
