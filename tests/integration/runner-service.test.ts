// The runner service for real: a `perfjudge runner` process on this machine's Redis judges queued
// patches (accepted, build error, malformed, platform fault), publishes progress, logs and
// heartbeats, refuses a target its hardware does not match, and stops cleanly on SIGTERM.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
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
import { cpuVendor } from '../../runner/host/fingerprint';
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

const SUBMISSIONS = path.join(REPO_ROOT, 'challenges', 'wordcount', 'submissions');
const QUEUE = judgeQueueName('linux-intel');
/** What the producer sets (lib/server/queue/producer.ts); the tests shorten only the backoff. */
const PRODUCER_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 30_000 },
};

let queues: TestQueues;
let queue: Queue;
let eventsConnection: Redis;
let events: QueueEvents;
let runner: RunnerProcess;
let tmp: string;
/** The manifest's version: a job for any other is refused by the runner. */
let version: number;

function jobData(
  judgingId: string,
  patchText: string,
  extra: Partial<JudgingJob> = {},
): JudgingJob {
  return {
    judgingId,
    round: 0,
    submissionId: `sub-${judgingId}`,
    challenge: { slug: 'wordcount', version },
    target: 'linux-intel',
    patchText,
    benchmark: SMALL_BENCHMARK,
    ...extra,
  };
}

async function patch(relative: string): Promise<string> {
  return readFile(path.join(SUBMISSIONS, relative), 'utf8');
}

async function waitUntil<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  ({ version } = (await loadChallenge('wordcount')).manifest);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-runner-test-'));
  // The sandbox's user works in folders under it.
  await chmod(tmp, 0o755);
  queues = await createTestQueues('runner');
  queue = new Queue(QUEUE, { connection: queues.redis, prefix: queues.prefix });
  eventsConnection = createWorkerConnection({ url: testRedisUrl(), onError: () => undefined });
  events = new QueueEvents(QUEUE, { connection: eventsConnection, prefix: queues.prefix });
  await events.waitUntilReady();
  runner = spawnRunner({ prefix: queues.prefix, id: 'runner-a', args: smallJudgingArgs(tmp) });
  await runner.waitFor(/serving judge-linux-intel/);
});

afterAll(async () => {
  runner?.stop('SIGKILL');
  await events?.close();
  eventsConnection?.disconnect();
  await queue?.close();
  await queues?.cleanup();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('perfjudge runner', () => {
  it('judges a queued patch: ACCEPTED, schema-valid result, progress, logs, heartbeat', async () => {
    const progress: JudgingProgress[] = [];
    const id = judgingJobId('j-accepted', 0);
    events.on('progress', ({ jobId, data }) => {
      if (jobId === id) progress.push(judgingProgressSchema.parse(data));
    });
    const job = await queue.add(
      'judge',
      jobData('j-accepted', await patch('accepted/fast-hash-table.patch')),
      { ...PRODUCER_OPTIONS, jobId: id },
    );

    // While it judges, its heartbeat names the job.
    const beat = await waitUntil(async () => {
      const { runners } = await listRunners(queues.redis, queues.prefix);
      return runners.find((r) => r.runnerId === 'runner-a' && r.currentJob !== null);
    }, 30_000);
    expect(beat).toMatchObject({
      target: 'linux-intel',
      devMode: true,
      hostname: os.hostname(),
      currentJob: { judgingId: 'j-accepted', round: 0 },
      // Started with --no-host-report (tests/helpers/queue.ts): the console must not wait for one.
      hostReportOff: true,
    });
    expect(beat.cpuVendor).toBe(await cpuVendor());

    const value: unknown = await job.waitUntilFinished(events, 150_000);
    const answer = judgingJobResultSchema.parse(value);
    expect(answer).toMatchObject({ judgingId: 'j-accepted', round: 0, runnerId: 'runner-a' });
    expect(answer.result.verdict, answer.result.message).toBe('ACCEPTED');
    expect(answer.result.judgingId).toBe('j-accepted');
    expect(answer.result.host.devMode).toBe(true);
    expect(answer.result.warnings.join('\n')).toMatch(/development mode/);
    expect(answer.result.stages.measure?.inputBytes).toBe(1 << 20);
    // The runner measured this host's memory bandwidth and the judge checked plausibility with it.
    expect(answer.result.stages.measure?.plausibility).toMatchObject({
      inputBytes: 1 << 20,
      flagged: false,
      bandwidthBytesPerSecond: expect.any(Number),
    });
    // The job's benchmark definition, recorded as timed on (development: labelled).
    expect(answer.result.benchmark).toEqual({
      sizeBytes: 1 << 20,
      seedFingerprint: null,
      development: true,
    });

    const stages = new Set(progress.map((p) => p.stage));
    for (const stage of ['intake', 'build', 'test', 'measure', 'report'] as const)
      expect(stages).toContain(stage);
    expect(progress.every((p) => p.judgingId === 'j-accepted' && p.round === 0)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ stage: 'report', fraction: 1 });
    // Throttled: a few updates a second, not every event the judge reports.
    const seconds = answer.result.durationMs / 1000;
    expect(progress.length).toBeLessThan(3 * seconds + 12);

    const { logs } = await queue.getJobLogs(id);
    expect(logs.some((l) => l.includes('[runner runner-a] attempt 1 of 3'))).toBe(true);
    expect(logs.some((l) => l.startsWith('patch applies'))).toBe(true);
    const done = await queue.getJob(id);
    expect(await done!.getState()).toBe('completed');
    expect(done!.attemptsMade).toBe(1);
    expect(done!.processedBy).toBe('runner-a');

    const { runners } = await listRunners(queues.redis, queues.prefix);
    expect(runners.find((r) => r.runnerId === 'runner-a')?.currentJob).toBeNull();
  }, 180_000);

  it('fails a malformed payload at once, without retries', async () => {
    const job = await queue.add(
      'judge',
      { judgingId: 'j-bad', patchText: 42, extra: true },
      { ...PRODUCER_OPTIONS, jobId: 'judging-j-bad-r0' },
    );
    const started = Date.now();
    await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow(
      /invalid judging job payload/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    const failed = await queue.getJob('judging-j-bad-r0');
    expect(await failed!.getState()).toBe('failed');
    expect(failed!.attemptsMade).toBe(1);
    expect(failed!.failedReason).toMatch(/round|submissionId|patchText/);
  }, 60_000);

  it("completes a contestant's fault (BUILD_ERROR) on the first attempt", async () => {
    const id = judgingJobId('j-build-error', 0);
    const job = await queue.add(
      'judge',
      jobData('j-build-error', await patch('build_error/syntax-error.patch')),
      { ...PRODUCER_OPTIONS, jobId: id },
    );
    const answer = judgingJobResultSchema.parse(await job.waitUntilFinished(events, 120_000));
    expect(answer.result.verdict, answer.result.message).toBe('BUILD_ERROR');
    const done = await queue.getJob(id);
    expect(await done!.getState()).toBe('completed');
    expect(done!.attemptsMade).toBe(1);
  }, 150_000);

  it('retries a platform fault (JUDGE_ERROR) and returns it on the last attempt', async () => {
    const id = judgingJobId('j-platform', 0);
    // A challenge version this runner does not have: the platform's fault, not the contestant's.
    const job = await queue.add(
      'judge',
      jobData('j-platform', await patch('accepted/fast-hash-table.patch'), {
        challenge: { slug: 'wordcount', version: 99 },
      }),
      { attempts: 2, backoff: { type: 'fixed', delay: 200 }, jobId: id },
    );
    const answer = judgingJobResultSchema.parse(await job.waitUntilFinished(events, 60_000));
    expect(answer.result.verdict).toBe('JUDGE_ERROR');
    expect(answer.result.message).toMatch(/v99/);
    const done = await queue.getJob(id);
    expect(await done!.getState()).toBe('completed');
    expect(done!.attemptsMade).toBe(2);
    const { logs } = await queue.getJobLogs(id);
    expect(logs.filter((l) => /attempt \d of 2/.test(l))).toHaveLength(2);
  }, 90_000);

  it('stops on SIGTERM with exit code 0 and its heartbeat gone', async () => {
    expect((await listRunners(queues.redis, queues.prefix)).runners.map((r) => r.runnerId)).toEqual(
      ['runner-a'],
    );
    runner.stop('SIGTERM');
    expect(await runner.exited).toEqual({ code: 0, signal: null });
    expect(runner.output()).toMatch(/SIGTERM received/);
    expect((await listRunners(queues.redis, queues.prefix)).runners).toEqual([]);
  }, 60_000);

  it('refuses a target its hardware does not match, unless in dev mode', async () => {
    // On this AMD machine linux-intel does not match; on an Intel one windows-amd does not (and
    // --no-emulate keeps it from being judged emulated under Wine, which it otherwise would be).
    const target = (await cpuVendor()) === 'GenuineIntel' ? 'windows-amd' : 'linux-intel';
    const refused = spawnRunner({
      prefix: queues.prefix,
      id: 'runner-refused',
      target,
      args: target === 'windows-amd' ? ['--no-emulate'] : [],
    });
    expect(await refused.exited).toEqual({ code: 2, signal: null });
    expect(refused.output()).toMatch(new RegExp(`does not match target ${target}`));
    expect(refused.output()).toMatch(/--dev-mode/);
    expect((await listRunners(queues.redis, queues.prefix)).runners).toEqual([]);
  }, 60_000);

  it("refuses an --input-size of its own: the contest's benchmark input comes in each job", async () => {
    const refused = spawnRunner({
      prefix: queues.prefix,
      id: 'runner-own-size',
      args: ['--dev-mode', '--input-size', '1MiB'],
    });
    expect(await refused.exited).toEqual({ code: 2, signal: null });
    expect(refused.output()).toMatch(/--input-size: a runner judges every contest job on the/);
    expect(refused.output()).toMatch(/organizer console/);
  }, 60_000);
});
