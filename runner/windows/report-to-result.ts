// Turns the job helper's report into a SandboxResult. Pure, so the rules are unit-tested without
// Windows: which limit ended the run, exit code versus exception, and — emulated — which figures
// come from the Linux sandbox around Wine because Wine's own accounting has none.
import type { JobHelperReport } from '../../contracts';
import type { LimitExceeded, SandboxResult } from '../sandbox/sandbox';

/** What the Linux sandbox around Wine measured for the whole Wine tree (emulated mode only). */
export interface OuterMeasurement {
  userTimeMs: number;
  sysTimeMs: number;
  minorFaults: number;
  majorFaults: number;
  voluntaryContextSwitches: number;
  involuntaryContextSwitches: number;
  /** The largest process of the Wine tree: the program's Wine process, Wine's loader included. */
  maxRssBytes: number;
  limitExceeded: LimitExceeded | null;
}

export interface Streams {
  stdout?: Buffer;
  stdoutBytes: number;
  stdoutSha256: string;
  stderr: string;
  stderrBytes: number;
}

export function reportToResult(
  report: JobHelperReport,
  streams: Streams,
  /** Emulated: Wine reports no process times and no page faults, so these come from outside. */
  outer: OuterMeasurement | null,
): SandboxResult {
  // The sandbox's own stops (output, file size) are certain; then the helper's limits.
  const limitExceeded: LimitExceeded | null =
    outer?.limitExceeded === 'output' || outer?.limitExceeded === 'file-size'
      ? outer.limitExceeded
      : (report.killed ?? outer?.limitExceeded ?? null);
  const killed = report.killed !== null || limitExceeded !== null;
  const signal = report.exception ?? (killed ? 'TerminateJobObject' : null);
  return {
    exitCode: signal === null ? report.exitCode : null,
    signal,
    limitExceeded,
    wallTimeMs: report.wallNs / 1e6,
    userTimeMs: outer ? outer.userTimeMs : report.userUs / 1e3,
    sysTimeMs: outer ? outer.sysTimeMs : report.kernelUs / 1e3,
    // Wine forgets an exited process's memory: a program that ends before the helper's first
    // sample (5 ms) has no peak from Wine (half of 4–6 ms runs measured here). The Linux sandbox's
    // figure stands in, an upper bound (about 14 MiB for a 7 MiB program: Wine's loader too).
    maxRssBytes:
      report.peakWorkingSetBytes > 0 || !outer ? report.peakWorkingSetBytes : outer.maxRssBytes,
    minorFaults: outer ? outer.minorFaults : report.pageFaults,
    majorFaults: outer ? outer.majorFaults : 0,
    // Windows keeps no per-process context-switch counts (only ETW traces have them).
    voluntaryContextSwitches: outer ? outer.voluntaryContextSwitches : 0,
    involuntaryContextSwitches: outer ? outer.involuntaryContextSwitches : 0,
    stdout: streams.stdout,
    stdoutBytes: streams.stdoutBytes,
    stdoutSha256: streams.stdoutSha256,
    stderr: streams.stderr,
    stderrBytes: streams.stderrBytes,
  };
}
