// Runs the build's commands (cmake, ninja, the compiler) inside the sandbox, with the build limits,
// so a patch that makes the compiler read a host file or explode stays contained.
import type { Limits } from '../../contracts';
import type { CommandExecutor } from './executor';
import type { Sandbox, SandboxMount } from '../sandbox/sandbox';

/** What the contestant's compiler may print before we stop keeping it. */
const BUILD_LOG_BYTES = 1 << 20;
export const BUILD_PATH = '/usr/local/bin:/usr/bin:/bin';
/** The whole environment of a build's cmake and compiler, in the sandbox or not. */
export const BUILD_ENV: Readonly<Record<string, string>> = {
  PATH: BUILD_PATH,
  HOME: '/tmp',
  LC_ALL: 'C',
  TMPDIR: '/tmp',
};

export interface SandboxedExecutorOptions {
  sandbox: Sandbox;
  /** The only writable directory: holds the contestant's tree and the build folder. */
  workDir: string;
  readOnly: SandboxMount[];
  limits: Limits;
  /** Filled with the limit that stopped the last command, if any. */
  onLimit?: (limit: string) => void;
  /** Pin the build to this CPU (the profile stage's rebuild, beside the judge CPU's runs). */
  cpu?: number;
}

export function sandboxedExecutor(options: SandboxedExecutorOptions): CommandExecutor {
  return async (command, args, commandOptions) => {
    // sh merges stderr into stdout so the log keeps the compiler's order of messages.
    let result;
    try {
      result = await options.sandbox.run({
        command: '/bin/sh',
        args: ['-c', 'exec "$0" "$@" 2>&1', command, ...args],
        workDir: options.workDir,
        cwd: commandOptions.cwd,
        readOnly: options.readOnly,
        env: { ...BUILD_ENV, ...commandOptions.env },
        stdout: 'capture',
        allowSyscalls: options.limits.allowSyscalls,
        ...(options.cpu === undefined ? {} : { cpu: options.cpu }),
        limits: {
          wallTimeMs: Math.max(1, Math.round(commandOptions.timeoutMs)),
          memoryBytes: options.limits.memory,
          processes: options.limits.processes,
          outputBytes: BUILD_LOG_BYTES,
          fileBytes: options.limits.fileBytes,
        },
        signal: commandOptions.signal,
      });
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
      return {
        exitCode: null,
        signal: null,
        output: '',
        timedOut: false,
        aborted: true,
        durationMs: 0,
      };
    }
    if (result.limitExceeded) options.onLimit?.(result.limitExceeded);
    let output = result.stdout?.toString('utf8') ?? '';
    if (result.limitExceeded === 'output')
      output += `\n[build log truncated at ${BUILD_LOG_BYTES} bytes]\n`;
    if (result.limitExceeded === 'memory') output += `\n[the build exceeded the memory limit]\n`;
    if (result.limitExceeded === 'processes')
      output += `\n[the build exceeded the process limit]\n`;
    if (result.limitExceeded === 'file-size')
      output += `\n[the build wrote a file over the size limit]\n`;
    return {
      exitCode: result.exitCode,
      signal: result.signal,
      output,
      timedOut: result.limitExceeded === 'time',
      aborted: false,
      durationMs: result.wallTimeMs,
    };
  };
}
