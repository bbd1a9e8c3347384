// Real `perfjudge` service processes for end-to-end tests: started with the test's Redis and key
// prefix (never DATABASE_URL, which runners must not have; the scorer gets it explicitly), ready
// once their output matches, stopped with SIGTERM, and killed by killAll() if a test failed.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/core/config/env';

const BIN = path.join(REPO_ROOT, 'bin/perfjudge.mjs');

export interface CliProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves when the output matches `ready`; rejects if the process exits first. */
  isReady: Promise<void>;
}

export class CliProcesses {
  private readonly started: CliProcess[] = [];

  constructor(private readonly base: { redisUrl: string; prefix: string }) {}

  start(args: string[], extraEnv: Record<string, string>, ready: RegExp): CliProcess {
    const { DATABASE_URL: _notForRunners, ...inherited } = process.env;
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: REPO_ROOT,
      env: {
        ...inherited,
        REDIS_URL: this.base.redisUrl,
        PERFJUDGE_QUEUE_PREFIX: this.base.prefix,
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const isReady = new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        out += d.toString();
        if (ready.test(out)) resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.on('exit', (code) => reject(new Error(`${args[0]} exited (${code}):\n${out}`)));
    });
    const proc = { child, output: () => out, isReady };
    this.started.push(proc);
    return proc;
  }

  /** The last `chars` of every process's output, for a failure message. */
  logs(chars = 2500): string {
    return this.started.map((p) => p.output().slice(-chars)).join('\n---\n');
  }

  killAll(): void {
    for (const p of this.started)
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
}

/** SIGTERM, then the exit code once it has exited (a graceful stop exits 0). */
export async function stopProcess(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}
