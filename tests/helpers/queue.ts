// Queue test helpers: a private BullMQ prefix per test file on this machine's Redis, removed
// afterwards, and runner processes started the way a judge host starts them.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { JobBenchmark } from '../../contracts';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import { createWorkerConnection } from '../../lib/server/queue/connection';
import { TEST_DATA_DIR } from './judging';
import { deleteKeys } from '../../dev/redis-keys';

export { deleteKeys };

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** This machine's Redis; tests delete keys, so any other host is refused. */
export function testRedisUrl(): string {
  const url = new URL(env().REDIS_URL);
  if (!LOCAL_HOSTS.has(url.hostname))
    throw new Error(
      `Refusing to run queue tests against ${url.hostname}: they delete keys, so REDIS_URL must point at this machine`,
    );
  return url.toString();
}

export interface TestQueues {
  prefix: string;
  redis: Redis;
  /** Deletes every key under the prefix and closes the connection. */
  cleanup(): Promise<void>;
}

/** A fresh prefix (`pjtest-<name>-<time>-<random>`): queues, jobs and heartbeats of one file. */
export async function createTestQueues(name: string): Promise<TestQueues> {
  const prefix = `pjtest-${name}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const redis = createWorkerConnection({ url: testRedisUrl(), onError: () => undefined });
  try {
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis is not reachable at ${testRedisUrl()} (${(error as Error).message}): start it with redis-server --daemonize yes`,
      { cause: error },
    );
  }
  return {
    prefix,
    redis,
    async cleanup() {
      await deleteKeys(redis, `${prefix}:*`);
      await redis.quit();
    },
  };
}

export interface RunnerProcess {
  child: ChildProcess;
  id: string;
  /** Everything the runner wrote to stderr so far. */
  output(): string;
  /** Resolves once a line matching the pattern appears (rejects after the timeout). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): void;
}

export interface SpawnRunnerOptions {
  prefix: string;
  id: string;
  /** Default linux-intel. */
  target?: string;
  args?: string[];
  /** Extra environment; DATABASE_URL is always removed, as on a judge host. */
  env?: Record<string, string>;
}

/** `node bin/perfjudge.mjs runner …` with this test's prefix, private caches and small inputs. */
export function spawnRunner(options: SpawnRunnerOptions): RunnerProcess {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: testRedisUrl(),
    PERFJUDGE_QUEUE_PREFIX: options.prefix,
    PERFJUDGE_DATA_DIR: TEST_DATA_DIR,
    ...options.env,
  };
  delete childEnv.DATABASE_URL;
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'perfjudge.mjs'),
      'runner',
      '--target',
      options.target ?? 'linux-intel',
      '--id',
      options.id,
      ...(options.args ?? []),
    ],
    { cwd: REPO_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let text = '';
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of [...waiters]) {
      const line = text.split('\n').find((l) => waiter.pattern.test(l));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    id: options.id,
    output: () => text,
    waitFor(pattern, timeoutMs = 60_000) {
      const line = text.split('\n').find((l) => pattern.test(l));
      if (line !== undefined) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`runner ${options.id} never printed ${pattern}; it printed:\n${text}`));
        }, timeoutMs);
        const waiter = {
          pattern,
          resolve: (l: string) => {
            clearTimeout(timer);
            resolve(l);
          },
        };
        waiters.push(waiter);
        void exited.then(() => {
          if (!waiters.includes(waiter)) return;
          waiters.splice(waiters.indexOf(waiter), 1);
          clearTimeout(timer);
          reject(new Error(`runner ${options.id} exited before printing ${pattern}:\n${text}`));
        });
      });
    },
    exited,
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/**
 * The benchmark input of test jobs: tiny, development (labelled). A runner times on the job's
 * input, never a size of its own, so quick tests make quick jobs.
 */
export const SMALL_BENCHMARK: JobBenchmark = { sizeBytes: 1 << 20, development: true };

/** Runner options for quick judgings in tests: a tiny public input, 3 pairs, no cachegrind, private lock. */
export function smallJudgingArgs(dir: string): string[] {
  return [
    '--dev-mode',
    // The start-up host report takes the host lock for a noise measurement: tests of the queue
    // and the lock want their runners judging at once (runner-host-report.test.ts tests it).
    '--no-host-report',
    '--public-size',
    '256KiB',
    '--runs',
    '3',
    '--no-deterministic',
    '--host-lock',
    path.join(dir, 'host.lock'),
    '--work-root',
    path.join(dir, 'work'),
  ];
}
