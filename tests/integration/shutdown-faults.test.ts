// Shutdown always completes within its grace period, whether or not Redis and PostgreSQL answer:
// a runner stopped mid-judging while its Redis is gone (the job cannot be handed back; its lock
// expires instead), and a scorer stopped while neither Redis nor PostgreSQL answers. Real
// processes, a private redis-server (stopped for real), a database port nothing listens on.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobId,
  judgingProgressSchema,
  type JudgingJob,
} from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { createWorkerConnection } from '../../lib/server/queue/connection';
import { freePort } from '../../lib/core/net/free-port';
import { CliProcesses } from '../helpers/cli-processes';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis';
import {
  SMALL_BENCHMARK,
  smallJudgingArgs,
  spawnRunner,
  type RunnerProcess,
} from '../helpers/queue';

const PREFIX = 'pjshutdown';
const QUEUE = judgeQueueName('linux-intel');

let redis: PrivateRedis;
let tmp: string;
let connection: Redis;
const runners: RunnerProcess[] = [];
const processes = new CliProcesses({ redisUrl: 'redis://127.0.0.1:1', prefix: PREFIX });

beforeAll(async () => {
  redis = await startPrivateRedis();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-shutdown-'));
  await chmod(tmp, 0o755);
  connection = createWorkerConnection({ url: redis.url, onError: () => undefined });
});

afterAll(async () => {
  for (const runner of runners) runner.stop('SIGKILL');
  processes.killAll();
  connection?.disconnect();
  await redis?.dispose();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function timed<T>(work: Promise<T>): Promise<{ value: T; seconds: number }> {
  const t0 = Date.now();
  const value = await work;
  return { value, seconds: (Date.now() - t0) / 1000 };
}

describe('shutdown without Redis or PostgreSQL', () => {
  it('a runner mid-judging stops within its grace period', async () => {
    const { version } = (await loadChallenge('wordcount')).manifest;
    const patchText = await readFile(
      path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
      'utf8',
    );
    const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
    const events = new QueueEvents(QUEUE, {
      connection: createWorkerConnection({ url: redis.url, onError: () => undefined }),
      prefix: PREFIX,
    });
    await events.waitUntilReady();
    const runner = spawnRunner({
      prefix: PREFIX,
      id: 'runner-no-redis',
      args: [...smallJudgingArgs(tmp), '--grace-seconds', '6'],
      env: { REDIS_URL: redis.url },
    });
    runners.push(runner);
    await runner.waitFor(/serving judge-linux-intel/);
    const job: JudgingJob = {
      judgingId: 'j-no-redis',
      round: 0,
      submissionId: 's-no-redis',
      challenge: { slug: 'wordcount', version },
      target: 'linux-intel',
      patchText,
      benchmark: SMALL_BENCHMARK,
    };
    const jobId = judgingJobId(job.judgingId, job.round);
    const building = new Promise<void>((resolve) =>
      events.on('progress', ({ jobId: id, data }) => {
        if (id === jobId && judgingProgressSchema.parse(data).stage !== 'intake') resolve();
      }),
    );
    await queue.add('judge', job, { jobId, attempts: 3 });
    await building;
    await events.close();
    await queue.close();

    await redis.stop();
    runner.stop('SIGTERM');
    const { value: exit, seconds } = await timed(runner.exited);
    await redis.restart();
    expect(exit, runner.output()).toEqual({ code: 0, signal: null });
    // 6 s of grace (3 for the judging, 3 to hand it back), a forced close of 2 s at most, and a
    // few seconds for a busy machine.
    expect(seconds, runner.output()).toBeLessThan(6 + 2 + 2 + 5);
    expect(runner.output()).toMatch(/could not be handed back .* stopping anyway/);
  }, 180_000);

  it('a scorer stops within its grace period while Redis and PostgreSQL are both gone', async () => {
    if (!redis.running()) await redis.restart();
    const deadPort = await freePort();
    const scorer = processes.start(
      ['scorer', '--grace-seconds', '2', '--reconcile-every', '1', '--reconcile-older-than', '0'],
      {
        REDIS_URL: redis.url,
        DATABASE_URL: `postgresql://postgres@127.0.0.1:${deadPort}/nothing`,
      },
      /scorer ready/,
    );
    await scorer.isReady;
    await redis.stop();
    // Let it notice: reconnects to Redis, a reconcile pass against a database that is not there.
    await new Promise((r) => setTimeout(r, 2_500));
    const exited = new Promise<number | null>((resolve) => scorer.child.on('exit', resolve));
    scorer.child.kill('SIGTERM');
    const { value: code, seconds } = await timed(exited);
    expect(code, scorer.output()).toBe(0);
    expect(seconds, scorer.output()).toBeLessThan(2 + 3 + 5 + 1 + 5);
    expect(scorer.output()).toContain('scorer stopped');
  }, 60_000);
});
