// Redis losing everything, for real: FLUSHALL, and a redis-server stopped and started again without
// persistence, on a PRIVATE server (the shared one on 6379 must never be flushed), with the real
// PostgreSQL (own schema), the real scorer and its reconciler. The runners here are FAKE (a BullMQ
// worker answering a canned result that passes the contract): this file is about the queue; the real
// runner process is covered by the runner-service tests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobResultSchema,
  judgingJobSchema,
  TARGET_IDS,
  type JudgingJobResult,
  type TargetId,
} from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import type { Db } from '../../lib/server/db/client';
import { createHttpConnection, createWorkerConnection } from '../../lib/server/queue/connection';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import type { ReconcileReport } from '../../scorer/reconcile';
import type { ScoreJobReturn } from '../../scorer/score-job';
import { startScorer, type Scorer } from '../../scorer/scorer';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis';

const PATCH = readFileSync(
  path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/baseline-copy.patch'),
  'utf8',
);
const PREFIX = 'pjfaults';
/** Two targets (fake runners for both), each with 2 warm-ups and 3 timed pairs: one set of runs. */
const RUNS_PER_SUBMISSION = 2 * (2 + 2 * 3);

let database: TestDatabase;
let db: Db;
let redis: PrivateRedis;
const closers: (() => Promise<unknown>)[] = [];
/** Every Redis connection error seen: expected while the server is down, and shown if a test fails. */
const redisErrors: string[] = [];
const log: string[] = [];

function connection(purpose: string): Redis {
  const c = createWorkerConnection({
    url: redis.url,
    connectionName: purpose,
    onError: (e) => redisErrors.push(`${purpose}: ${e.message}`),
  });
  closers.push(() => c.quit().catch(() => c.disconnect()));
  return c;
}

/** The web app's side (fails fast while Redis is down) and the scorer's side (waits it out). */
function queueSets(): { web: QueueSet; scorer: QueueSet; webConnection: Redis } {
  const webConnection = createHttpConnection({
    url: redis.url,
    connectionName: 'web',
    onError: (e) => redisErrors.push(`web: ${e.message}`),
  });
  const web = createQueueSet({
    connection: webConnection,
    prefix: PREFIX,
    enqueueTimeoutMs: 1_000,
  });
  const scorer = createQueueSet({
    connection: connection('scorer-producer'),
    prefix: PREFIX,
    enqueueTimeoutMs: 1_000,
  });
  closers.push(
    () => web.close(),
    () => webConnection.quit().catch(() => webConnection.disconnect()),
    () => scorer.close(),
  );
  return { web, scorer, webConnection };
}

interface FakeRunners {
  /** How many times each judging was handed to a fake runner. */
  calls: Map<string, number>;
  /** Resolves once `n` jobs are held in the runners' hands. */
  held(n: number): Promise<void>;
  release(): void;
}

/** FAKE runners for both targets; with `holdFirst`, each first job waits until release(). */
function fakeRunners(holdFirst = false): FakeRunners {
  const calls = new Map<string, number>();
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let holding = 0;
  const heldWaiters: { n: number; resolve: () => void }[] = [];
  for (const target of TARGET_IDS) {
    let first = true;
    const worker = new Worker(
      judgeQueueName(target),
      async (job: Job): Promise<JudgingJobResult> => {
        const data = judgingJobSchema.parse(job.data);
        calls.set(data.judgingId, (calls.get(data.judgingId) ?? 0) + 1);
        if (holdFirst && first) {
          first = false;
          holding++;
          for (const w of heldWaiters.filter((w) => holding >= w.n)) w.resolve();
          await gate;
        }
        return judgingJobResultSchema.parse({
          judgingId: data.judgingId,
          round: data.round,
          runnerId: `fake-${target}`,
          result: makeResult({
            slug: data.challenge.slug,
            version: data.challenge.version,
            target: target as TargetId,
            judgingId: data.judgingId,
            speedup: target === 'linux-intel' ? 2 : 3,
          }),
        });
      },
      {
        connection: connection(`fake-${target}`),
        prefix: PREFIX,
        name: `fake-${target}`,
        // Short locks: a job whose lock Redis lost is noticed quickly.
        lockDuration: 5_000,
        stalledInterval: 2_000,
      },
    );
    worker.on('error', (e) => log.push(`fake-${target}: ${e.message}`));
    worker.on('failed', (job, e) => log.push(`fake-${target}: ${job?.id} failed: ${e.message}`));
    closers.push(() => worker.close());
  }
  return {
    calls,
    held: (n) =>
      holding >= n ? Promise.resolve() : new Promise((resolve) => heldWaiters.push({ n, resolve })),
    release: () => release(),
  };
}

interface RunningScorer {
  scorer: Scorer;
  scored: ScoreJobReturn[];
  reports: ReconcileReport[];
}

function scorer(queues: QueueSet): RunningScorer {
  const scored: ScoreJobReturn[] = [];
  const reports: ReconcileReport[] = [];
  const s = startScorer({
    db,
    queues,
    connect: (purpose) => connection(purpose),
    reconcileEveryMs: 500,
    // A judging untouched for a second is fair game: these tests enqueue nothing slower than that.
    reconcileOlderThanMs: 1_000,
    trackClaims: true,
    log: (line) => log.push(`scorer: ${line}`),
    onScored: (r) => scored.push(r),
    onReconciled: (r) => reports.push(r),
  });
  closers.push(() => s.close());
  return { scorer: s, scored, reports };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}\n--- log\n${log.slice(-40).join('\n')}\n--- redis errors\n${[...new Set(redisErrors)].slice(-10).join('\n')}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function submission(id: string) {
  return db.submission.findUniqueOrThrow({
    where: { id },
    select: {
      status: true,
      verdict: true,
      score: true,
      judgings: { select: { id: true, status: true, verdict: true } },
    },
  });
}

async function submit(queues: QueueSet, userId: string) {
  const result = await submitPatch({
    db,
    queues,
    userId,
    challengeSlug: 'wordcount',
    patchText: PATCH,
  });
  if (!result.ok) throw new Error(result.message);
  return result;
}

async function settled(id: string) {
  return until(`submission ${id} to settle`, async () => {
    const s = await submission(id);
    return s.status === 'DONE' || s.status === 'FAILED' ? s : null;
  });
}

/** Settled DONE with the sum of the fake speedups, and one set of runs recorded (not two). */
async function expectScoredOnce(id: string): Promise<void> {
  const s = await settled(id);
  expect(s).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
  expect(s.score).toBeCloseTo(2 + 3, 9);
  expect(s.judgings.every((j) => j.status === 'DONE' && j.verdict === 'ACCEPTED')).toBe(true);
  expect(await db.run.count({ where: { judging: { submissionId: id } } })).toBe(
    RUNS_PER_SUBMISSION,
  );
}

function requeuedCount(reports: ReconcileReport[], id: string): number {
  return reports.flatMap((r) => r.requeued).filter((s) => s === id).length;
}

async function dbsize(): Promise<number> {
  const c = connection('probe');
  return c.dbsize();
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  database = await createTestDatabase();
  db = database.db;
  await registerChallenge(db);
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  if (redis.running()) await redis.flushAll();
  log.length = 0;
  redisErrors.length = 0;
});

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await redis?.dispose();
  await database?.drop();
});

describe('Redis loses every key', () => {
  it('FLUSHALL before any runner took the job: the reconciler re-queues it and the score is recorded once', async () => {
    const userId = await makeUser(db);
    const { web, scorer: scorerQueues } = queueSets();
    const submitted = await submit(web, userId);
    expect(submitted.queued).toBe(true);
    // Waiting for a runner, with its place in the fair queue (a priority).
    expect(await web.judgeQueue('linux-intel').getJobCounts('wait', 'prioritized')).toEqual({
      wait: 0,
      prioritized: 1,
    });

    await redis.flushAll();
    expect(await dbsize()).toBe(0);

    const runners = fakeRunners();
    const { scored, reports } = scorer(scorerQueues);
    await expectScoredOnce(submitted.submissionId);
    expect(requeuedCount(reports, submitted.submissionId)).toBe(1);
    // Each judging was handed to a runner once, and scored once.
    expect([...runners.calls.values()]).toEqual([1, 1]);
    // One score job per judging (each target is recorded on its own), each run once.
    await until(
      'both score jobs',
      async () => scored.filter((r) => r.submissionId === submitted.submissionId).length >= 2,
    );
    expect(scored.filter((r) => r.submissionId === submitted.submissionId)).toHaveLength(2);
  }, 60_000);

  it('redis-server stopped mid-judging and restarted empty: workers reconnect, the reconciler re-queues, the score is recorded once', async () => {
    const userId = await makeUser(db);
    const { web, scorer: scorerQueues } = queueSets();
    const runners = fakeRunners(true);
    const { scorer: s, scored, reports } = scorer(scorerQueues);
    await s.ready();
    const submitted = await submit(web, userId);
    expect(submitted.queued).toBe(true);
    const id = submitted.submissionId;
    // Both fake runners are mid-job, and the claim tracker saw them take it.
    await runners.held(2);
    // (WAITING: taken from the queue; these fake runners report no stage past the host-lock wait.)
    await until('the judgings to be marked taken', async () =>
      (await submission(id)).judgings.every((j) => j.status === 'WAITING'),
    );

    await redis.stop();
    // The runners finish while Redis is down: their answers wait for a server that has lost the jobs.
    runners.release();
    await new Promise((r) => setTimeout(r, 1_000));
    await redis.restart();
    expect(await dbsize()).toBe(0);

    await expectScoredOnce(id);
    expect(requeuedCount(reports, id)).toBe(1);
    // The answers given before the restart were lost with the jobs: each judging ran again, once.
    expect([...runners.calls.values()]).toEqual([2, 2]);
    await until(
      'both score jobs',
      async () => scored.filter((r) => r.submissionId === id).length >= 2,
    );
    expect(scored.filter((r) => r.submissionId === id)).toHaveLength(2);
    expect(redisErrors.length).toBeGreaterThan(0);
  }, 60_000);

  it('a submission made while Redis is down is stored, then queued by the reconciler once Redis is back', async () => {
    const userId = await makeUser(db);
    const { web, scorer: scorerQueues } = queueSets();
    const runners = fakeRunners();
    const { scorer: s, reports } = scorer(scorerQueues);
    await s.ready();

    await redis.stop();
    const started = Date.now();
    const submitted = await submit(web, userId);
    // Refused by Redis at once (the web side does not wait), but committed to PostgreSQL.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(submitted.queued).toBe(false);
    const stored = await submission(submitted.submissionId);
    expect(stored.status).toBe('QUEUED');
    expect(stored.judgings.every((j) => j.status === 'QUEUED')).toBe(true);
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await submission(submitted.submissionId)).status).toBe('QUEUED');

    await redis.restart();
    await expectScoredOnce(submitted.submissionId);
    expect(requeuedCount(reports, submitted.submissionId)).toBe(1);
    expect([...runners.calls.values()]).toEqual([1, 1]);
  }, 60_000);

  it('a submission after a restart is judged by the same, reconnected workers without the reconciler', async () => {
    const userId = await makeUser(db);
    const { web, scorer: scorerQueues, webConnection } = queueSets();
    const runners = fakeRunners();
    const { scorer: s, reports } = scorer(scorerQueues);
    await s.ready();
    await redis.restart();
    // The web side refuses rather than waits while disconnected: submit once it is back.
    await until('the web connection to reconnect', async () => webConnection.status === 'ready');
    const submitted = await submit(web, userId);
    expect(submitted.queued).toBe(true);
    await expectScoredOnce(submitted.submissionId);
    expect(requeuedCount(reports, submitted.submissionId)).toBe(0);
    expect([...runners.calls.values()]).toEqual([1, 1]);
  }, 60_000);
});
