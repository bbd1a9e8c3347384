// Runners stopped mid-judging lose nothing: SIGTERM lets the judging finish (or, past the grace
// period, hands the job back), and a runner killed with SIGKILL has its job retaken by another
// runner process once its lock expires — real processes, real Redis, real judgings.
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobId,
  judgingJobResultSchema,
  judgingProgressSchema,
  type JudgingJob,
  type JudgingProgress,
} from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { createWorkerConnection } from '../../lib/server/queue/connection';
import { listRunners } from '../../runner/service';
import {
  createTestQueues,
  SMALL_BENCHMARK,
  smallJudgingArgs,
  spawnRunner,
  testRedisUrl,
  type RunnerProcess,
  type TestQueues,
} from '../helpers/queue';

const QUEUE = judgeQueueName('linux-intel');
const PRODUCER_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 30_000 },
};
/** Short locks so a killed runner's job is retaken within seconds, not a minute. */
const SHORT_LOCKS = ['--lock-duration', '2000', '--stalled-interval', '1000'];

let queues: TestQueues;
let queue: Queue;
let eventsConnection: Redis;
let events: QueueEvents;
let tmp: string;
/** The manifest's version: a job for any other is refused by the runner. */
let version: number;
let patchText: string;
const runners: RunnerProcess[] = [];

function jobData(judgingId: string): JudgingJob {
  return {
    judgingId,
    round: 0,
    submissionId: `sub-${judgingId}`,
    challenge: { slug: 'wordcount', version },
    target: 'linux-intel',
    patchText,
    benchmark: SMALL_BENCHMARK,
  };
}

function startRunner(id: string, extra: string[] = []): RunnerProcess {
  const runner = spawnRunner({
    prefix: queues.prefix,
    id,
    args: [...smallJudgingArgs(tmp), ...extra],
  });
  runners.push(runner);
  return runner;
}

/** Resolves with the first progress event of the job that satisfies the predicate. */
function progressOf(
  jobId: string,
  predicate: (p: JudgingProgress) => boolean,
): Promise<JudgingProgress> {
  return new Promise((resolve) => {
    const listener = ({ jobId: id, data }: { jobId: string; data: unknown }) => {
      if (id !== jobId) return;
      const progress = judgingProgressSchema.parse(data);
      if (!predicate(progress)) return;
      events.off('progress', listener);
      resolve(progress);
    };
    events.on('progress', listener);
  });
}

beforeAll(async () => {
  ({ version } = (await loadChallenge('wordcount')).manifest);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-runner-faults-'));
  await chmod(tmp, 0o755);
  patchText = await readFile(
    path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
    'utf8',
  );
  queues = await createTestQueues('runner-faults');
  queue = new Queue(QUEUE, { connection: queues.redis, prefix: queues.prefix });
  eventsConnection = createWorkerConnection({ url: testRedisUrl(), onError: () => undefined });
  events = new QueueEvents(QUEUE, { connection: eventsConnection, prefix: queues.prefix });
  await events.waitUntilReady();
});

afterAll(async () => {
  for (const runner of runners) runner.stop('SIGKILL');
  await Promise.all(runners.map((r) => r.exited));
  await events?.close();
  eventsConnection?.disconnect();
  await queue?.close();
  await queues?.cleanup();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('runner faults', () => {
  const first = judgingJobId('j-sigterm', 0);
  const second = judgingJobId('j-handed-back', 0);

  it('SIGTERM mid-judging: the judging finishes, no new job is taken, exit 0', async () => {
    const runner = startRunner('runner-term');
    await runner.waitFor(/serving judge-linux-intel/);
    const job = await queue.add('judge', jobData('j-sigterm'), {
      ...PRODUCER_OPTIONS,
      jobId: first,
    });
    await progressOf(first, (p) => p.stage === 'build');
    runner.stop('SIGTERM');
    await runner.waitFor(/SIGTERM received: taking no new jobs/);
    // Queued while the runner stops: it must stay for another runner.
    await queue.add('judge', jobData('j-handed-back'), { ...PRODUCER_OPTIONS, jobId: second });

    const answer = judgingJobResultSchema.parse(await job.waitUntilFinished(events, 120_000));
    expect(answer.result.verdict, answer.result.message).toBe('ACCEPTED');
    expect(answer.runnerId).toBe('runner-term');
    expect(await runner.exited).toEqual({ code: 0, signal: null });
    expect(await (await queue.getJob(second))!.getState()).toBe('waiting');
    expect((await listRunners(queues.redis, queues.prefix)).runners).toEqual([]);
  }, 150_000);

  it('SIGTERM past the grace period: the judging is cancelled and its job handed back, exit 0', async () => {
    // 6 s: 3 for the judging, 3 to cancel it and hand its job back (shutdownBudget): 2 s to hand
    // back was too little once on a loaded CI host, and the job stayed active until its lock expired.
    const runner = startRunner('runner-grace', ['--grace-seconds', '6']);
    await progressOf(second, (p) => p.stage === 'build');
    runner.stop('SIGTERM');
    expect(await runner.exited).toEqual({ code: 0, signal: null });
    expect(runner.output()).toMatch(/handed back to the queue/);
    const job = await queue.getJob(second);
    expect(await job!.getState()).toBe('waiting');
    // Not a failed attempt: the next runner starts it as attempt 1 of 3.
    expect(job!.attemptsMade).toBe(0);
    expect(job!.returnvalue).toBeFalsy();
  }, 120_000);

  it('kill -9 mid-judging: another runner process retakes the job after the lock expires', async () => {
    const doomed = startRunner('runner-doomed', SHORT_LOCKS);
    await progressOf(second, (p) => p.stage === 'test');
    doomed.stop('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    // Its scratch folder (a tmpfs when root) and the host lock file are left behind.
    expect((await readdir(path.join(tmp, 'work'))).length).toBeGreaterThan(0);
    await readFile(path.join(tmp, 'host.lock'), 'utf8');

    const rescuer = startRunner('runner-rescuer', SHORT_LOCKS);
    const job = (await queue.getJob(second))!;
    const answer = judgingJobResultSchema.parse(await job.waitUntilFinished(events, 120_000));
    expect(answer.result.verdict, answer.result.message).toBe('ACCEPTED');
    expect(answer.runnerId).toBe('runner-rescuer');
    const done = (await queue.getJob(second))!;
    expect(await done.getState()).toBe('completed');
    expect(done.stalledCounter).toBe(1);
    expect(done.attemptsMade).toBe(1);
    expect(rescuer.output()).toMatch(/broke a stale host lock left by runner-doomed/);
    expect(rescuer.output()).toMatch(/removed 1 scratch folder/);
    const { logs } = await queue.getJobLogs(second);
    expect(logs.filter((l) => l.includes('[runner runner-rescuer] attempt 1 of 3'))).toHaveLength(
      1,
    );

    rescuer.stop('SIGTERM');
    expect(await rescuer.exited).toEqual({ code: 0, signal: null });
    expect(await readdir(path.join(tmp, 'work'))).toEqual([]);
  }, 150_000);
});
