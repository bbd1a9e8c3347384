// The platform's processes for the browser tests (web app, scorer, runners): started with their
// output written to test-results/e2e-logs/ (kept after the run for debugging), ready when their
// start-up line appears, stopped gracefully and then killed if they hang.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../lib/core/config/env';

export const LOG_DIR = path.join(REPO_ROOT, 'test-results', 'e2e-logs');

export interface Service {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** The last few kilobytes of its output, for error messages. */
  tail(): string;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Output that says the process is ready; omitted: wait for it to exit with 0 instead. */
  ready?: RegExp;
  timeoutMs: number;
}

const TAIL_CHARS = 6_000;

function launch(options: StartOptions): Service {
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `${options.name}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(options.command, options.args, {
    cwd: REPO_ROOT,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const onData = (chunk: Buffer) => {
    log.write(chunk);
    tail = (tail + chunk.toString()).slice(-TAIL_CHARS);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  child.on('close', () => log.end());
  return { name: options.name, child, logFile, tail: () => tail };
}

function failure(service: Service, why: string): Error {
  return new Error(
    `${service.name} ${why} (log: ${path.relative(REPO_ROOT, service.logFile)})\n${service.tail()}`,
  );
}

/** Starts a long-lived process and resolves once its output matches `ready`. */
export async function startService(options: StartOptions & { ready: RegExp }): Promise<Service> {
  const service = launch(options);
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(failure(service, `not ready within ${options.timeoutMs / 1000} s`)),
      options.timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (options.ready.test(seen)) {
        clearTimeout(timer);
        service.child.stdout?.off('data', onData);
        service.child.stderr?.off('data', onData);
        seen = '';
        resolve();
      }
    };
    service.child.stdout?.on('data', onData);
    service.child.stderr?.on('data', onData);
    service.child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(failure(service, `exited before it was ready (${signal ?? code})`));
    });
  }).catch(async (error: unknown) => {
    await stopService(service, 2_000);
    throw error;
  });
  return service;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stopService(service: Service, graceMs: number): Promise<void> {
  const { child } = service;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Linux's clock ticks per second for /proc/<pid>/stat times (USER_HZ, 100 on every architecture). */
const USER_HZ = 100;

/**
 * The CPU seconds (user + system) a running service has used, with those of its children it has
 * waited for (compilers, sandboxes, Wine, valgrind): read from /proc before it is stopped, so a
 * run can say where its CPU went. Null once the process is gone or off Linux.
 */
export function cpuSeconds(service: Service): number | null {
  const pid = service.child.pid;
  if (pid === undefined || service.child.exitCode !== null) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14 … cstime 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
    return ticks / USER_HZ;
  } catch {
    return null;
  }
}
