// Spawns a sandbox's helper (sandbox-helper.c for bubblewrap and Docker, the job helper for Windows
// Job Objects) and collects what the untrusted process printed: stdout counted, hashed and (when
// asked) kept up to the output limit, stderr kept up to its cap; parses sandbox-helper.c's report.
// The one output loop of every sandbox.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { z } from 'zod';

/** The JSON line sandbox-helper.c writes when the command is over. */
export const helperReportSchema = z.object({
  exited: z.boolean(),
  exitCode: z.number().int(),
  termSignal: z.number().int(),
  /** The status came from our init inside the sandbox (exact), not from bwrap's 128+n. */
  statusFromInit: z.boolean(),
  execStarted: z.boolean(),
  killed: z.enum(['time', 'setup-time', 'aborted']).nullable(),
  wallNs: z.number().int().nonnegative(),
  setupNs: z.number().int().nonnegative(),
  userUs: z.number().int().nonnegative(),
  sysUs: z.number().int().nonnegative(),
  maxRssKb: z.number().int().nonnegative(),
  minorFaults: z.number().int().nonnegative(),
  majorFaults: z.number().int().nonnegative(),
  voluntaryCtxSwitches: z.number().int().nonnegative(),
  involuntaryCtxSwitches: z.number().int().nonnegative(),
  /**
   * perf_event_open readings of the command's tree (the request's counters): errno 0 when the
   * counter opened; value and times (ns) as read(2) gave them, unscaled. Values are not checked to
   * be integers: a count past 2^53 arrives rounded, and must not void the whole report.
   */
  counters: z
    .array(
      z.object({
        name: z.string(),
        errno: z.number().int().nonnegative(),
        value: z.number().nonnegative(),
        enabled: z.number().nonnegative(),
        running: z.number().nonnegative(),
      }),
    )
    .default([]),
  /**
   * The pinned CPU's accounting from the command's start to its end (/proc/stat, in clockTicks per
   * second); -1 when there was no pinned CPU or /proc/stat could not be read.
   */
  clockTicks: z.number().int().positive().default(100),
  cpuBusyTicks: z.number().int().min(-1).default(-1),
  cpuStealTicks: z.number().int().min(-1).default(-1),
  /** Threads and processes the command's tree started (its pid namespace's count); -1 unknown. */
  tasksStarted: z.number().int().min(-1).default(-1),
  /** Per --resident file, in order: its pages, and how many were resident before and after re-warming. */
  residency: z
    .array(
      z.object({
        pages: z.number().int().min(-1),
        before: z.number().int().min(-1),
        after: z.number().int().min(-1),
      }),
    )
    .default([]),
});
export type HelperReport = z.infer<typeof helperReportSchema>;

export interface HelperSpawnOptions {
  file: string;
  args: string[];
  /**
   * The helper's environment; empty by default. A helper that isolates the program (bwrap's init)
   * must get none: the sandbox user could read it through /proc/1/environ. The Windows job helper
   * isolates nothing of the kind and passes its own on to the program.
   */
  env?: Record<string, string>;
  /** The helper's working directory (default: the runner's). */
  cwd?: string;
  /** An open fd for standard input; /dev/null when absent. */
  stdinFd?: number;
  /** The helper writes its report to fd 3 (false: the caller reads it from elsewhere). */
  reportOnFd3: boolean;
  stdout: 'capture' | 'hash';
  outputBytes: number;
  stderrBytes: number;
  signal?: AbortSignal;
  /** Kill the helper outright after this long: the last resort if it hangs. */
  backstopMs: number;
  /** Asks the helper to end the run (default: SIGTERM to it); must be idempotent. */
  stop?: (child: { kill: (signal: NodeJS.Signals) => boolean }) => void;
}

export interface HelperOutcome {
  /** The helper's report line, unparsed (empty when it wrote none). */
  reportText: string;
  helperExitCode: number | null;
  helperSignal: string | null;
  stdout?: Buffer;
  stdoutBytes: number;
  stdoutSha256: string;
  stderr: string;
  stderrBytes: number;
  outputExceeded: boolean;
  aborted: boolean;
}

const PIPE_GRACE_MS = 2000;

/** What every sandbox hands its helper from the request: stdin, the output caps, the abort signal. */
export function requestStreams(
  // A normalized request (request.ts), by shape: request.ts already imports this module (counters.ts).
  req: {
    stdout: HelperSpawnOptions['stdout'];
    limits: { outputBytes: number };
    stderrBytes: number;
    signal?: AbortSignal;
  },
  stdin?: { fd: number } | null,
): Pick<HelperSpawnOptions, 'stdinFd' | 'stdout' | 'outputBytes' | 'stderrBytes' | 'signal'> {
  return {
    stdinFd: stdin?.fd,
    stdout: req.stdout,
    outputBytes: req.limits.outputBytes,
    stderrBytes: req.stderrBytes,
    signal: req.signal,
  };
}

export function parseHelperReport(text: string): HelperReport | null {
  const line = text.trim().split('\n').pop();
  if (!line) return null;
  try {
    const parsed = helperReportSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The run's stdout: hashed (and kept, when captured) up to its limit; past it the run is stopped
 * and the output counted as exceeded.
 */
function stdoutSink(options: HelperSpawnOptions, stop: () => void) {
  const hash = createHash('sha256');
  const kept: Buffer[] = [];
  let stdoutBytes = 0;
  let outputExceeded = false;
  return {
    write(chunk: Buffer) {
      const room = options.outputBytes - stdoutBytes;
      stdoutBytes += chunk.length;
      const take = room >= chunk.length ? chunk : chunk.subarray(0, Math.max(room, 0));
      if (take.length > 0) {
        hash.update(take);
        if (options.stdout === 'capture') kept.push(take);
      }
      if (stdoutBytes > options.outputBytes && !outputExceeded) {
        outputExceeded = true;
        stop();
      }
    },
    result() {
      return {
        stdout: options.stdout === 'capture' ? Buffer.concat(kept) : undefined,
        stdoutBytes,
        stdoutSha256: hash.digest('hex'),
        outputExceeded,
      };
    },
  };
}

/** The run's stderr: the first `max` bytes kept, all of them counted. */
function stderrSink(max: number) {
  const errChunks: Buffer[] = [];
  let stderrKept = 0;
  let stderrBytes = 0;
  return {
    write(chunk: Buffer) {
      stderrBytes += chunk.length;
      const room = max - stderrKept;
      if (room > 0) {
        const take = chunk.subarray(0, room);
        errChunks.push(take);
        stderrKept += take.length;
      }
    },
    result() {
      return { stderr: Buffer.concat(errChunks).toString('utf8'), stderrBytes };
    },
  };
}

export function runHelper(options: HelperSpawnOptions): Promise<HelperOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.file, options.args, {
      env: options.env ?? {},
      // Spawn options are passed to Node as given: no key at all rather than an undefined one.
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      // No console window for a helper started on Windows (ignored elsewhere).
      windowsHide: true,
      stdio: [options.stdinFd ?? 'ignore', 'pipe', 'pipe', options.reportOnFd3 ? 'pipe' : 'ignore'],
    });

    const out = stdoutSink(options, () => stop());
    const err = stderrSink(options.stderrBytes);
    const reportChunks: Buffer[] = [];
    let aborted = false;
    let stopped = false;

    const stop = () => {
      if (stopped) return;
      stopped = true;
      if (options.stop) options.stop(child);
      else child.kill('SIGTERM');
    };

    child.stdout?.on('data', out.write);
    child.stderr?.on('data', err.write);
    const reportStream = child.stdio[3] as Readable | null | undefined;
    reportStream?.on('data', (chunk: Buffer) => reportChunks.push(chunk));

    const backstop = setTimeout(() => child.kill('SIGKILL'), options.backstopMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error) => {
      clearTimeout(backstop);
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    // Once the helper is gone nothing of the sandbox should hold the pipes; if something does, stop
    // waiting for it after a grace period rather than hang the runner.
    let grace: NodeJS.Timeout | undefined;
    child.on('exit', () => {
      grace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        reportStream?.destroy();
      }, PIPE_GRACE_MS);
    });
    child.on('close', (code, signal) => {
      clearTimeout(backstop);
      clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        reportText: Buffer.concat(reportChunks).toString('utf8'),
        helperExitCode: code,
        helperSignal: signal,
        ...out.result(),
        ...err.result(),
        aborted,
      });
    });
  });
}
