// The sandbox interface: every untrusted process (compiler or solution) runs through one of these.
// The pipeline never knows which mechanism (bubblewrap, Docker, a Windows job object) is behind it.
import type { Counter } from '../../contracts';

export interface SandboxLimits {
  /** Wall-clock limit; the whole process tree is killed when it passes. */
  wallTimeMs: number;
  /** Memory limit for the whole process tree. */
  memoryBytes: number;
  /** Most processes/threads the untrusted tree may have at once. */
  processes: number;
  /** Most bytes of standard output kept or hashed; more is OUTPUT_LIMIT_EXCEEDED. */
  outputBytes: number;
  /** Largest file the untrusted code may write. */
  fileBytes: number;
}

export interface SandboxMount {
  /** Absolute host path. */
  host: string;
  /** Absolute path inside the sandbox. */
  sandbox: string;
}

export interface SandboxRequest {
  /** Executable path as seen inside the sandbox (or a name looked up on the sandbox's PATH). */
  command: string;
  args: string[];
  /** Host directory that is the only writable place (mounted at the same path inside). */
  workDir: string;
  /** Working directory inside the sandbox; defaults to workDir. */
  cwd?: string;
  /** Extra read-only mounts (inputs, the harness); the toolchain is always visible read-only. */
  readOnly?: SandboxMount[];
  /** The complete environment of the untrusted process (nothing is inherited). */
  env?: Record<string, string>;
  /** Host file fed as standard input; otherwise stdin is empty. */
  stdinFile?: string;
  /**
   * What to do with standard output: keep it in memory (up to limits.outputBytes), or only count and
   * hash it (timed runs: the output is checked by its sha256 without holding it).
   */
  stdout: 'capture' | 'hash';
  /** Most bytes of standard error kept (the rest is counted and dropped). Default 64 KiB. */
  stderrBytes?: number;
  /** Pin the process tree to this CPU. */
  cpu?: number;
  /**
   * Events to count on the command and everything it starts, from its exec on (perf's names:
   * task-clock, cycles, instructions, page-faults, …; see SANDBOX_COUNTERS). The trusted side
   * counts them with perf_event_open, so nothing inside the sandbox can see or forge them.
   */
  counters?: string[];
  /**
   * Syscalls of contracts' DENIED_SYSCALLS this run may use (the challenge's manifest
   * limits.allowSyscalls, or a trusted tool such as perf); every other one fails with EPERM.
   */
  allowSyscalls?: string[];
  /**
   * Host files the command reads (its input, its binary and libraries) that must be wholly in the
   * page cache when it starts: checked with mincore and read back in when a page is missing, before
   * the clock starts, so nothing one run does to the page cache reaches the next. At most 16.
   */
  resident?: string[];
  limits: SandboxLimits;
  signal?: AbortSignal;
}

/** One `resident` file: its pages, and how many were in the page cache before and after re-warming. */
export interface FileResidency {
  path: string;
  pages: number;
  residentBefore: number;
  residentAfter: number;
}

/**
 * What the trusted side saw around the run, beside the process's own accounting: the disturbance
 * evidence and the page cache. A figure the sandbox cannot tell is null.
 */
export interface RunAccounting {
  /** Busy time of the pinned CPU from the command's start to its end (/proc/stat), all tasks. */
  cpuBusyMs: number | null;
  /** Time the hypervisor gave the pinned CPU to others (steal), over the same span. */
  cpuStealMs: number | null;
  /** Threads and processes the command's tree started (0 for a single-threaded program). */
  tasksStarted: number | null;
  /** Tick length of the two CPU figures (their resolution). */
  tickMs: number;
  residency: FileResidency[];
}

/** Why the sandbox stopped the process, when it did. */
export type LimitExceeded = 'time' | 'memory' | 'output' | 'processes' | 'file-size';

export interface SandboxResult {
  /** Exit status when the process exited normally. */
  exitCode: number | null;
  /** Signal name when it was killed (by the sandbox or by itself). */
  signal: string | null;
  limitExceeded: LimitExceeded | null;
  /** Measured from outside the untrusted process. */
  wallTimeMs: number;
  userTimeMs: number;
  sysTimeMs: number;
  maxRssBytes: number;
  minorFaults: number;
  majorFaults: number;
  voluntaryContextSwitches: number;
  involuntaryContextSwitches: number;
  /**
   * One entry per requested counter (absent when none was requested). User-space only where the
   * host allows no more (perf_event_paranoid ≥ 2 without CAP_PERFMON); 'unsupported' where the
   * kernel refused it, never 0.
   */
  counters?: Record<string, Counter>;
  /** Disturbance evidence and page-cache residency; absent where the sandbox cannot measure them. */
  accounting?: RunAccounting;
  /** Standard output when stdout was 'capture' (never more than limits.outputBytes). */
  stdout?: Buffer;
  stdoutBytes: number;
  stdoutSha256: string;
  stderr: string;
  stderrBytes: number;
}

export interface Sandbox {
  /** 'wine': the emulated Windows job helper inside bubblewrap; 'windows-job': a native Job Object. */
  readonly kind: 'bubblewrap' | 'docker' | 'wine' | 'windows-job';
  /** Checks that the mechanism works on this host; throws an UnavailableError saying why not. */
  check(): Promise<void>;
  run(request: SandboxRequest): Promise<SandboxResult>;
}
