// A private redis-server per test file, on its own localhost port and without persistence, so a test
// can FLUSHALL it or stop and restart it (losing every key, as a crashed Redis does) without touching
// the Redis other tests share.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../lib/core/net/free-port';

export interface PrivateRedis {
  port: number;
  url: string;
  /** Whether the server process is running. */
  running(): boolean;
  /** Everything the server printed (for failure messages). */
  output(): string;
  flushAll(): Promise<void>;
  /** SIGTERM, then waits for the process to exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** Starts it again on the same port; with no persistence every key is gone. */
  restart(): Promise<void>;
  /** Stops the server for good and removes its directory. */
  dispose(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** One RESP command over a plain socket: no client library whose reconnects would blur the picture. */
function command(port: number, line: string, timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis on port ${port} did not answer ${line}`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(`${line}\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.endsWith('\r\n')) {
        clearTimeout(timer);
        socket.end();
        resolve(reply.trim());
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

// Killed when the test process exits however it exits (short of SIGKILL): a leaked server would
// hold its port and memory until the machine restarts.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pj-private-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let text = '';

  const launch = async () => {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
        // BullMQ's advice; with eviction a job could vanish for a reason this test does not intend.
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    live.add(proc);
    installExitHook();
    proc.stdout?.on('data', (d: Buffer) => (text += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (text += d.toString()));
    exited = new Promise((resolve) =>
      proc.once('exit', () => {
        live.delete(proc);
        resolve();
      }),
    );
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`redis-server on port ${port} exited at start:\n${text}`);
      try {
        if ((await command(port, 'PING', 500)) === '+PONG') return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`redis-server on port ${port} never answered PING:\n${text}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const running = () => !!child && child.exitCode === null && child.signalCode === null;

  const stop = async () => {
    const proc = child;
    if (!proc || !running()) return;
    const killer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
    proc.kill('SIGTERM');
    await exited;
    clearTimeout(killer);
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    running,
    output: () => text,
    async flushAll() {
      const reply = await command(port, 'FLUSHALL');
      if (reply !== '+OK') throw new Error(`FLUSHALL answered ${reply}`);
    },
    stop,
    async restart() {
      await stop();
      await launch();
    },
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
