// The drill's service processes (`perfjudge runner`, `perfjudge scorer`): each a slot that can be
// started, killed with SIGKILL and started again, keeping every incarnation's output line by line
// with the time it arrived (the invariants compare those times with the faults').
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { REPO_ROOT } from '../../lib/core/config/env';

const BIN = path.join(REPO_ROOT, 'bin/perfjudge.mjs');

export interface ServiceLine {
  /** Date.now() when the line arrived. */
  at: number;
  /** Which start of the slot printed it (1, 2, …). */
  incarnation: number;
  line: string;
}

export interface ServiceSlotOptions {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** A line that says the service is up. */
  ready: RegExp;
  readyTimeoutMs?: number;
  /** Told every line as it arrives (a bench's log file). */
  echo?: (line: string) => void;
}

export class ServiceSlot {
  readonly lines: ServiceLine[] = [];
  /** When each incarnation was killed (SIGKILL), by incarnation. */
  readonly killedAt = new Map<number, number>();
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private incarnation = 0;
  private readonly groups: number[] = [];

  constructor(private readonly options: ServiceSlotOptions) {}

  get name(): string {
    return this.options.name;
  }

  running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts an incarnation; resolves once it prints the ready line (rejects if it exits first). */
  async start(): Promise<void> {
    const incarnation = ++this.incarnation;
    // Its own process group: the clean-up at the end takes whatever a killed runner left behind.
    const child = spawn(process.execPath, [BIN, ...this.options.args], {
      cwd: REPO_ROOT,
      env: this.options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    if (child.pid) this.groups.push(child.pid);
    const { ready, readyTimeoutMs = 120_000 } = this.options;
    const isReady = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name} not ready in ${readyTimeoutMs} ms:\n${this.tail()}`)),
        readyTimeoutMs,
      );
      const onLine = (line: string) => {
        this.lines.push({ at: Date.now(), incarnation, line });
        this.options.echo?.(`${new Date().toISOString()} [${this.name}#${incarnation}] ${line}`);
        if (ready.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      };
      for (const stream of [child.stdout, child.stderr])
        if (stream) readline.createInterface({ input: stream }).on('line', onLine);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(`${this.name} exited (${signal ?? code}) before it was ready:\n${this.tail()}`),
        );
      });
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await isReady;
  }

  /** kill -9 of the service process alone (not its group: a real crash leaves children too). */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running()) return;
    this.killedAt.set(this.incarnation, Date.now());
    child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (a graceful stop), SIGKILL after `graceMs`; then its process group is killed. */
  async stop(graceMs = 20_000): Promise<void> {
    const child = this.child;
    if (child && this.running()) {
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.kill('SIGTERM');
      await this.exited;
      clearTimeout(killer);
    }
    this.killGroup();
  }

  /** Whatever the incarnations left running (a killed runner's compilers or Wine). */
  killGroup(): void {
    for (const pid of this.groups)
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // That group is empty.
      }
  }

  /** The last lines, for a failure message. */
  tail(lines = 40): string {
    return this.lines
      .slice(-lines)
      .map((l) => `[${this.name}#${l.incarnation}] ${l.line}`)
      .join('\n');
  }
}
