// Child processes of `npm start`: each in its own process group (so a terminal's Ctrl-C reaches
// only the orchestrator, which then stops them in order), its output prefixed with its name, and
// stopped with SIGTERM, then SIGKILL to the whole group after a grace period.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import readline from 'node:readline';
import { AppError } from '../../contracts';

export interface ChildOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Print the output prefixed with [name] (else it only goes to the log file). */
  echo?: boolean;
  /** Also append the output here. */
  logFile?: string;
}

export interface Child {
  name: string;
  process: ChildProcess;
  /** Resolves with the exit code (or 128 + signal number's stand-in, -1) when the process ends. */
  exited: Promise<number>;
  /** The last lines of output, for error messages. */
  tail(): string[];
  /** Resolves when a line matches; rejects if the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  stop(graceMs: number, signal?: NodeJS.Signals): Promise<number>;
  running(): boolean;
  /** How it ended, in words ("exit code 1", "killed by SIGKILL"); null while it runs. */
  exitReason(): string | null;
}

const TAIL_LINES = 40;

function prefixLine(name: string, line: string): string {
  return `[${name}] ${line}\n`;
}

export function startChild(options: ChildOptions): Child {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  const watchers = new Set<(line: string) => void>();
  let log: WriteStream | undefined;
  if (options.logFile) log = createWriteStream(options.logFile, { flags: 'a' });
  const onLine = (line: string) => {
    lines.push(line);
    if (lines.length > TAIL_LINES) lines.shift();
    if (options.echo !== false) process.stdout.write(prefixLine(options.name, line));
    log?.write(`${line}\n`);
    for (const watch of watchers) watch(line);
  };
  for (const stream of [child.stdout, child.stderr])
    if (stream) readline.createInterface({ input: stream }).on('line', onLine);

  let code: number | undefined;
  let reason: string | null = null;
  const exited = new Promise<number>((resolve) => {
    child.on('error', (error) => {
      onLine(`could not start ${options.command}: ${error.message}`);
      code = -1;
      reason = `could not start: ${error.message}`;
      resolve(-1);
    });
    child.on('exit', (exitCode, signal) => {
      code = exitCode ?? (signal ? -1 : 0);
      reason = signal ? `killed by ${signal}` : `exit code ${exitCode}`;
      // Whatever the leader left behind in its group goes with it.
      killGroup(child.pid, 'SIGKILL');
      log?.end();
      resolve(code);
    });
  });

  return {
    name: options.name,
    process: child,
    exited,
    tail: () => [...lines],
    running: () => code === undefined,
    exitReason: () => reason,
    waitForLine(pattern, timeoutMs) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          watchers.delete(watch);
          reject(new Error(`${options.name}: not ready after ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        const watch = (line: string) => {
          if (!pattern.test(line)) return;
          clearTimeout(timer);
          watchers.delete(watch);
          resolve(line);
        };
        watchers.add(watch);
        void exited.then((exitCode) => {
          clearTimeout(timer);
          watchers.delete(watch);
          reject(new ChildExitedError(options.name, exitCode, [...lines]));
        });
      });
    },
    async stop(graceMs, signal = 'SIGTERM') {
      if (code !== undefined) return code;
      // The leader only: a runner or the web server stops its own children in order.
      child.kill(signal);
      const timer = setTimeout(() => {
        onLine(`still running ${Math.round(graceMs / 1000)} s after ${signal}: SIGKILL`);
        killGroup(child.pid, 'SIGKILL');
      }, graceMs);
      const exitCode = await exited;
      clearTimeout(timer);
      return exitCode;
    },
  };
}

export class ChildExitedError extends AppError {
  override name = 'ChildExitedError';
  readonly code = 'unavailable' as const;
  constructor(
    readonly child: string,
    readonly exitCode: number,
    readonly lines: string[],
  ) {
    super(`${child} exited (code ${exitCode}) before it was ready`);
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Runs a command to completion with prefixed output; resolves with its exit code. */
export async function runPrefixed(
  options: ChildOptions,
): Promise<{ code: number; tail: string[] }> {
  const child = startChild(options);
  const code = await child.exited;
  return { code, tail: child.tail() };
}
