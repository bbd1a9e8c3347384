// Turns what the helper and the cgroup measured into a SandboxResult, and decides which limit (if
// any) ended the run. Pure: unit-testable without running anything.
import { constants } from 'node:os';
import { toCounters } from './counters';
import type { HelperOutcome, HelperReport } from './run-helper';
import type { LimitExceeded, RunAccounting, SandboxResult } from './sandbox';

// One name per signal: Node lists aliases after the usual name (SIGABRT before SIGIOT, SIGIO before
// SIGPOLL), so the first name of each number is kept, the one `perfjudge run` and the judge print.
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, n] of Object.entries(constants.signals))
  if (!SIGNAL_NAMES.has(n)) SIGNAL_NAMES.set(n, name);

export function signalName(n: number): string {
  return SIGNAL_NAMES.get(n) ?? `SIG${n}`;
}

export interface Termination {
  exitCode: number | null;
  signal: string | null;
}

/**
 * The command's own exit status. The sandbox's init reports it exactly; without it (bwrap died
 * first) all we have is bwrap's status, where a signal shows as exit code 128+n.
 */
export function termination(report: HelperReport, exact: boolean): Termination {
  if (!report.exited) return { exitCode: null, signal: signalName(report.termSignal) };
  if (!exact && !report.statusFromInit && report.exitCode > 128 && report.exitCode < 128 + 65) {
    return { exitCode: null, signal: signalName(report.exitCode - 128) };
  }
  return { exitCode: report.exitCode, signal: null };
}

export interface LimitEvidence {
  termination: Termination;
  killedFor: HelperReport['killed'];
  outputExceeded: boolean;
  /** From the run's cgroup; null when the host gave us none. */
  oomKills: number | null;
  pidsLimitHits: number | null;
  /** How memory was limited: a cgroup (OOM kills are seen) or RLIMIT_AS (they are inferred). */
  memoryLimit: 'cgroup' | 'rlimit' | 'docker';
  memoryBytes: number;
  maxRssBytes: number;
  /** Docker's State.OOMKilled. */
  dockerOomKilled?: boolean;
}

/**
 * Which limit stopped the run. The sandbox's own kills (output, time) are certain; memory and
 * processes count only when the run failed, since a tree can hit pids.max once, recover and succeed.
 */
export function decideLimitExceeded(e: LimitEvidence): LimitExceeded | null {
  const failed = e.termination.exitCode !== 0;
  if (failed && ((e.oomKills ?? 0) > 0 || e.dockerOomKilled === true)) return 'memory';
  if (e.outputExceeded) return 'output';
  if (e.termination.signal === 'SIGXFSZ') return 'file-size';
  if (failed && (e.pidsLimitHits ?? 0) > 0) return 'processes';
  if (e.killedFor === 'time') return 'time';
  // RLIMIT_AS makes allocations fail instead of killing: a run that died abnormally after its
  // resident set reached half the limit is taken to have run out (the rest of the address space
  // goes to code, stacks and allocator slack). A best effort, used only without a memory cgroup.
  if (
    failed &&
    e.memoryLimit === 'rlimit' &&
    (e.termination.signal !== null || e.termination.exitCode !== null) &&
    e.maxRssBytes >= e.memoryBytes / 2
  ) {
    return 'memory';
  }
  return null;
}

/** The helper's accounting figures as a RunAccounting (-1, "could not tell", becomes null). */
export function toAccounting(report: HelperReport, resident: readonly string[]): RunAccounting {
  const tickMs = 1000 / report.clockTicks;
  const ticks = (n: number) => (n < 0 ? null : n * tickMs);
  return {
    cpuBusyMs: ticks(report.cpuBusyTicks),
    cpuStealMs: ticks(report.cpuStealTicks),
    tasksStarted: report.tasksStarted < 0 ? null : report.tasksStarted,
    tickMs,
    residency: report.residency.flatMap((r, i) =>
      resident[i] !== undefined && r.pages >= 0 && r.before >= 0 && r.after >= 0
        ? [{ path: resident[i], pages: r.pages, residentBefore: r.before, residentAfter: r.after }]
        : [],
    ),
  };
}

export function toSandboxResult(
  report: HelperReport,
  outcome: HelperOutcome,
  term: Termination,
  limitExceeded: LimitExceeded | null,
  /** The request's counters: each is in the result, counted or not. */
  counters: readonly string[] = [],
  /** The request's resident files, in the order given to the helper. */
  resident: readonly string[] = [],
): SandboxResult {
  return {
    exitCode: term.exitCode,
    signal: term.signal,
    limitExceeded,
    wallTimeMs: report.wallNs / 1e6,
    userTimeMs: report.userUs / 1e3,
    sysTimeMs: report.sysUs / 1e3,
    maxRssBytes: report.maxRssKb * 1024,
    minorFaults: report.minorFaults,
    majorFaults: report.majorFaults,
    voluntaryContextSwitches: report.voluntaryCtxSwitches,
    involuntaryContextSwitches: report.involuntaryCtxSwitches,
    counters: counters.length ? toCounters(counters, report.counters) : undefined,
    accounting: toAccounting(report, resident),
    stdout: outcome.stdout,
    stdoutBytes: outcome.stdoutBytes,
    stdoutSha256: outcome.stdoutSha256,
    stderr: outcome.stderr,
    stderrBytes: outcome.stderrBytes,
  };
}

/** The rejection of an aborted run, as fetch and timers/promises do it. */
export function abortError(signal?: AbortSignal): DOMException {
  const error = new DOMException('The sandboxed run was aborted', 'AbortError');
  if (signal?.reason !== undefined) Object.defineProperty(error, 'cause', { value: signal.reason });
  return error;
}
