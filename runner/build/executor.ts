// How the build runs a command: an injectable executor, so the judge can put compilers in its sandbox
// while local tools and tests run them directly.
import { spawn, type ChildProcess } from 'node:child_process';

export interface CommandOptions {
  cwd: string;
  /** The complete environment of the command; the executor's own environment when omitted. */
  env?: Record<string, string>;
  /** Wall-clock limit; the whole process tree is killed when it passes. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface CommandResult {
  /** Exit status when the command exited normally. */
  exitCode: number | null;
  /** Signal name when it was killed. */
  signal: string | null;
  /** Standard output and standard error interleaved as they arrived, capped (see the executor). */
  output: string;
  timedOut: boolean;
  /** The signal passed in was aborted and the command was stopped. */
  aborted: boolean;
  /** The command could not be started at all (e.g. not found); exitCode is null then. */
  spawnError?: string;
  durationMs: number;
}

export type CommandExecutor = (
  command: string,
  args: string[],
  options: CommandOptions,
) => Promise<CommandResult>;

/** Compiler output past this is dropped (its head holds the first, most useful errors). */
const DEFAULT_OUTPUT_CAP_BYTES = 1 << 20;

/** How long to wait for the pipes to close after the process exited (a grandchild may hold them). */
const PIPE_GRACE_MS = 2000;

export interface SpawnExecutorOptions {
  outputCapBytes?: number;
}

/** The command's output up to `cap` bytes, and how much more was dropped. */
function collectOutput(cap: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    collect(chunk: Buffer) {
      const room = cap - kept;
      if (room >= chunk.length) {
        chunks.push(chunk);
        kept += chunk.length;
      } else {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept += Math.max(room, 0);
        dropped += chunk.length - Math.max(room, 0);
      }
    },
    text() {
      const output = Buffer.concat(chunks).toString('utf8');
      return dropped > 0 ? `${output}\n[... ${dropped} more bytes of output dropped]\n` : output;
    },
  };
}

/** Kills the command and what it started (its process group where there are groups). */
function killGroup(child: ChildProcess, usesGroups: boolean): void {
  if (child.pid === undefined) return;
  try {
    if (usesGroups) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Runs commands directly on the host with child_process.spawn, each in its own process group so a
 * timeout or an abort kills the compiler's children too.
 */
export function createSpawnExecutor(options: SpawnExecutorOptions = {}): CommandExecutor {
  const cap = options.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES;
  return (command, args, { cwd, env, timeoutMs, signal }) =>
    new Promise<CommandResult>((resolve) => {
      const started = performance.now();
      let timedOut = false;
      let aborted = false;
      let spawnError: string | undefined;
      let exit: { code: number | null; signal: string | null } | undefined;
      let settled = false;

      const usesGroups = process.platform !== 'win32';
      const child = spawn(command, args, {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: usesGroups,
        windowsHide: true,
      });

      const killTree = () => killGroup(child, usesGroups);

      const output = collectOutput(cap);
      child.stdout?.on('data', output.collect);
      child.stderr?.on('data', output.collect);

      const timer = setTimeout(() => {
        timedOut = true;
        killTree();
      }, timeoutMs);
      const onAbort = () => {
        aborted = true;
        killTree();
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });

      let graceTimer: NodeJS.Timeout | undefined;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(graceTimer);
        signal?.removeEventListener('abort', onAbort);
        let text = output.text();
        if (spawnError) text += `${text && !text.endsWith('\n') ? '\n' : ''}${spawnError}\n`;
        resolve({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          output: text,
          timedOut,
          aborted,
          ...(spawnError === undefined ? {} : { spawnError }),
          durationMs: performance.now() - started,
        });
      };

      child.on('error', (error: NodeJS.ErrnoException) => {
        // Only a failed start leaves no exit event behind; later errors (a failed kill) are moot.
        if (child.pid !== undefined) return;
        spawnError = `cannot run ${command}: ${error.code === 'ENOENT' ? 'not found' : error.message}`;
        finish();
      });
      child.on('exit', (code, sig) => {
        exit = { code, signal: sig };
        graceTimer = setTimeout(() => {
          // Something the command started still holds the pipes: it goes with its group.
          killTree();
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish();
        }, PIPE_GRACE_MS);
      });
      child.on('close', () => {
        if (exit === undefined) return;
        finish();
      });
    });
}

export const spawnExecutor: CommandExecutor = createSpawnExecutor();

/** A command line as a person would type it, for logs. */
export function formatCommand(command: string, args: string[]): string {
  return [command, ...args]
    .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}
