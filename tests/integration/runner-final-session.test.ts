// Final sessions through the runner service for real: a `perfjudge runner` process takes a
// final-session job from the judge queue, checkpoints every round in the job's data, reports it as
// progress and answers with the session's result; a runner killed mid-session has its job taken
// over by another, which times only the rounds still missing; the organizer's cancel flag stops a
// session for good.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalSessionCancelKey, judgeQueueName } from '../../contracts';
import {
  FINAL_SESSION_JOB_NAME,
  finalSessionJobId,
  finalSessionJobSchema,
  finalSessionProgressSchema,
  finalSessionResultSchema,
  type FinalSessionJob,
  type FinalSessionProgress,
} from '../../contracts/final';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { createWorkerConnection } from '../../lib/server/queue/connection';
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
const SUBMISSIONS = path.join(REPO_ROOT, 'challenges', 'wordcount', 'submissions');
const PRODUCER_OPTIONS: JobsOptions = { attempts: 2, backoff: { type: 'fixed', delay: 1_000 } };
/** Short locks so a killed runner's job is retaken within seconds, not a minute. */
const SHORT_LOCKS = ['--lock-duration', '2000', '--stalled-interval', '1000'];

let queues: TestQueues;
let queue: Queue;
let eventsConnection: Redis;
let events: QueueEvents;
let tmp: string;
let version: number;
let entrants: FinalSessionJob['entrants'];
const runners: RunnerProcess[] = [];
/** Every progress event of every job, as published. */
const progress = new Map<string, FinalSessionProgress[]>();

function sessionJob(
  sessionId: string,
  rounds: number[],
  sizeBytes = SMALL_BENCHMARK.sizeBytes,
): FinalSessionJob {
  return {
    evaluationId: 'eval-test',
    sessionId,
    part: 0,
    challenge: { slug: 'wordcount', version },
    target: 'linux-intel',
    benchmark: { ...SMALL_BENCHMARK, sizeBytes, seed: 'test-final-worker-seed' },
    entrants,
    rounds,
    done: [],
    // The runner is in development mode: once these are spent, disturbed rounds are kept.
    maxDiscardedRounds: 2,
  };
}

function startRunner(id: string): RunnerProcess {
  const runner = spawnRunner({
    prefix: queues.prefix,
    id,
    args: [...smallJudgingArgs(tmp), ...SHORT_LOCKS],
  });
  runners.push(runner);
  return runner;
}

async function waitUntil<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  ({ version } = (await loadChallenge('wordcount')).manifest);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-runner-final-'));
  await chmod(tmp, 0o755);
  entrants = [
    {
      entrantId: 'copy',
      patchText: await readFile(path.join(SUBMISSIONS, 'accepted/baseline-copy.patch'), 'utf8'),
    },
    {
      entrantId: 'fast',
      patchText: await readFile(path.join(SUBMISSIONS, 'accepted/fast-hash-table.patch'), 'utf8'),
    },
  ];
  queues = await createTestQueues('runner-final');
  queue = new Queue(QUEUE, { connection: queues.redis, prefix: queues.prefix });
  eventsConnection = createWorkerConnection({ url: testRedisUrl(), onError: () => undefined });
  events = new QueueEvents(QUEUE, { connection: eventsConnection, prefix: queues.prefix });
  await events.waitUntilReady();
  events.on('progress', ({ jobId, data }) => {
    const list = progress.get(jobId) ?? [];
    list.push(finalSessionProgressSchema.parse(data));
    progress.set(jobId, list);
  });
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

describe('final sessions on the runner service', () => {
  it('runs a final-session job, checkpoints every round in its data, answers with the result', async () => {
    const runner = startRunner('runner-final');
    await runner.waitFor(/serving judge-linux-intel/);
    const id = finalSessionJobId('s-whole', 0);
    const job = await queue.add(FINAL_SESSION_JOB_NAME, sessionJob('s-whole', [0, 1, 2]), {
      ...PRODUCER_OPTIONS,
      jobId: id,
    });
    const result = finalSessionResultSchema.parse(await job.waitUntilFinished(events, 240_000));
    expect(result.judgeError).toBeNull();
    expect(result.runnerId).toBe('runner-final');
    expect(result.devMode).toBe(true);
    expect(result.excluded).toEqual([]);
    expect(result.rounds.map((r) => r.round)).toEqual([0, 1, 2]);
    expect(result.rounds.every((r) => r.runs.length === 3 && r.runs.every((x) => x.correct))).toBe(
      true,
    );
    const data = finalSessionJobSchema.parse((await queue.getJob(id))!.data);
    expect(data.done).toEqual(result.rounds);
    const withRound = (progress.get(id) ?? []).filter((p) => p.round);
    expect(withRound.map((p) => p.round!.round)).toEqual([0, 1, 2]);
    expect(withRound.map((p) => p.roundsDone)).toEqual([1, 2, 3]);
    runner.stop('SIGTERM');
    expect(await runner.exited).toEqual({ code: 0, signal: null });
  }, 300_000);

  it('a runner killed mid-session: another takes the job over and times only the missing rounds', async () => {
    const rounds = [0, 1, 2, 3, 4, 5];
    const id = finalSessionJobId('s-resumed', 0);
    const doomed = startRunner('runner-doomed');
    // Runs long enough (8 MiB) that the runner is still timing when it is killed.
    const job = await queue.add(FINAL_SESSION_JOB_NAME, sessionJob('s-resumed', rounds, 8 << 20), {
      ...PRODUCER_OPTIONS,
      jobId: id,
    });
    await waitUntil(async () => {
      const seen = (progress.get(id) ?? []).filter((p) => p.round).length;
      return seen >= 2 ? true : undefined;
    }, 240_000);
    doomed.stop('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    const checkpoint = finalSessionJobSchema.parse((await queue.getJob(id))!.data).done;
    expect(checkpoint.length).toBeGreaterThanOrEqual(2);
    expect(checkpoint.length).toBeLessThan(rounds.length);
    const before = (progress.get(id) ?? []).length;

    const rescuer = startRunner('runner-rescuer');
    const result = finalSessionResultSchema.parse(await job.waitUntilFinished(events, 240_000));
    expect(result.judgeError).toBeNull();
    expect(result.runnerId).toBe('runner-rescuer');
    expect(result.rounds.map((r) => r.round)).toEqual(rounds);
    // The checkpoint's rounds are kept as the doomed runner timed them, not timed again.
    expect(result.rounds.slice(0, checkpoint.length)).toEqual(checkpoint);
    const retimed = (progress.get(id) ?? [])
      .slice(before)
      .filter((p) => p.round)
      .map((p) => p.round!.round);
    expect(retimed).toEqual(rounds.slice(checkpoint.length));
    expect(rescuer.output()).toMatch(
      new RegExp(`${checkpoint.length} of ${rounds.length} rounds done`),
    );
    const done = (await queue.getJob(id))!;
    expect(done.stalledCounter).toBe(1);
    expect(finalSessionJobSchema.parse(done.data).done).toEqual(result.rounds);
    rescuer.stop('SIGTERM');
    expect(await rescuer.exited).toEqual({ code: 0, signal: null });
  }, 360_000);
  it("the organizer's cancel flag stops a session for good, its finished rounds kept", async () => {
    const rounds = [0, 1, 2, 3, 4, 5];
    const id = finalSessionJobId('s-cancelled', 0);
    const runner = startRunner('runner-cancel');
    const job = await queue.add(
      FINAL_SESSION_JOB_NAME,
      sessionJob('s-cancelled', rounds, 8 << 20),
      { ...PRODUCER_OPTIONS, jobId: id },
    );
    await waitUntil(
      async () => ((progress.get(id) ?? []).some((p) => p.round) ? true : undefined),
      240_000,
    );
    await queues.redis.set(
      finalSessionCancelKey(queues.prefix, 's-cancelled', 0),
      'the organizers cancelled the final evaluation: test',
      'EX',
      600,
    );
    await expect(job.waitUntilFinished(events, 60_000)).rejects.toThrow(
      /the organizers cancelled the final evaluation: test/,
    );
    const failed = (await queue.getJob(id))!;
    expect(await failed.getState()).toBe('failed');
    // Not retried: one attempt, though the producer allows two.
    expect(failed.attemptsMade).toBe(1);
    const kept = finalSessionJobSchema.parse(failed.data).done;
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.length).toBeLessThan(rounds.length);
    runner.stop('SIGTERM');
    expect(await runner.exited).toEqual({ code: 0, signal: null });
  }, 300_000);
});
