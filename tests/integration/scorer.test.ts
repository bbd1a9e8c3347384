// The scorer against the real PostgreSQL and Redis of this machine: results recorded once, scores
// computed, failures recorded as JUDGE_ERROR, duplicate deliveries harmless, a database outage
// survived by retrying. Judging is done by a FAKE runner (a tiny worker in this file that returns a
// canned result that passes the contract); the real runner process is tested with the runner.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { QueueEvents, Worker, type Job, type Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobResultSchema,
  judgingJobSchema,
  judgingCancelKey,
  judgingScoreJobId,
  TARGET_IDS,
  type JudgingJobResult,
  type TargetId,
} from '../../contracts';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import { createDbClient, type Db } from '../../lib/server/db/client';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { startScorer, type Scorer } from '../../scorer/scorer';
import { reconcile } from '../../scorer/reconcile';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { leaderboardEntries, makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

const PATCH = readFileSync(
  path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/baseline-copy.patch'),
  'utf8',
);
const REDIS_URL = env().REDIS_URL;
/** This file's own key prefix: nothing here touches another test's (or a real deployment's) keys. */
const PREFIX = `test-scorer-${randomBytes(4).toString('hex')}`;

let database: TestDatabase;
let db: Db;
let producerRedis: Redis;
let queues: QueueSet;
const closers: (() => Promise<unknown>)[] = [];

function workerConnection(): Redis {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  closers.push(() => redis.quit());
  return redis;
}

/** Deletes every key of this file's prefix (never FLUSHALL: other tests share the server). */
async function deletePrefixKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** Every judging a fake runner took: `<target>:<judgingId>` (to prove one was not judged again). */
const calls: string[] = [];

type FakeAnswer = {
  speedup?: number;
  verdict?: 'ACCEPTED' | 'WRONG_ANSWER' | 'BUILD_ERROR';
  /** Report a stage past the host-lock wait before holding (as a real runner's judge does). */
  progress?: boolean;
  fail?: string;
  /** Answer something that breaks the contract (a runner of another version, a bug). */
  garbage?: boolean;
  /** Hold the job until this resolves. */
  hold?: Promise<void>;
};

/** A FAKE runner for one target: validates the payload like the real one, answers canned results. */
function fakeRunner(
  target: TargetId,
  answer: (judgingId: string) => FakeAnswer = () => ({}),
): Worker {
  const worker = new Worker(
    judgeQueueName(target),
    async (job: Job): Promise<JudgingJobResult> => {
      const data = judgingJobSchema.parse(job.data);
      const a = answer(data.judgingId);
      calls.push(`${target}:${data.judgingId}`);
      if (a.progress)
        await job.updateProgress({
          stage: 'build',
          fraction: 0,
          message: 'building',
          judgingId: data.judgingId,
          round: data.round,
        });
      await a.hold;
      if (a.fail) throw new Error(a.fail);
      if (a.garbage)
        return { judgingId: data.judgingId, round: data.round, verdict: 'ACCEPTED' } as never;
      return judgingJobResultSchema.parse({
        judgingId: data.judgingId,
        round: data.round,
        runnerId: `fake-${target}`,
        result: makeResult({
          slug: data.challenge.slug,
          version: data.challenge.version,
          target,
          judgingId: data.judgingId,
          speedup: a.speedup ?? (target === 'linux-intel' ? 2 : 3),
          verdict: a.verdict ?? 'ACCEPTED',
        }),
      });
    },
    { connection: workerConnection(), prefix: PREFIX, name: `fake-${target}` },
  );
  worker.on('error', () => {});
  closers.push(() => worker.close());
  return worker;
}

function fakeRunners(answer?: (judgingId: string) => FakeAnswer): Worker[] {
  return TARGET_IDS.map((t) => fakeRunner(t, answer));
}

function scorerFor(scorerDb: Db, extra: Partial<Parameters<typeof startScorer>[0]> = {}): Scorer {
  const scorer = startScorer({
    db: scorerDb,
    queues,
    connect: () => new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
    reconcileEveryMs: null,
    trackClaims: false,
    ...extra,
  });
  closers.push(() => scorer.close());
  return scorer;
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
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
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
      judgings: { select: { id: true, status: true, verdict: true, round: true, message: true } },
    },
  });
}

async function submit(userId: string): Promise<string> {
  const result = await submitPatch({
    db,
    queues,
    userId,
    challengeSlug: 'wordcount',
    patchText: PATCH,
  });
  if (!result.ok) throw new Error(result.message);
  expect(result.queued).toBe(true);
  return result.submissionId;
}

async function settled(id: string) {
  return until(`submission ${id} to settle`, async () => {
    const s = await submission(id);
    return s.status === 'DONE' || s.status === 'FAILED' ? s : null;
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await registerChallenge(db);
  producerRedis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  queues = createQueueSet({
    connection: producerRedis,
    prefix: PREFIX,
    // Fast retries: the policy under test is "retried", not "after 30 seconds".
    policies: { judge: { attempts: 2, backoffMs: 100 }, score: { attempts: 6, backoffMs: 300 } },
  });
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await deletePrefixKeys(producerRedis, PREFIX);
});

afterAll(async () => {
  await queues?.close();
  if (producerRedis) {
    await deletePrefixKeys(producerRedis, PREFIX);
    await producerRedis.quit();
  }
  await database?.drop();
});

/** Jobs waiting for a runner: new submissions wait prioritized (the fair queue), others in wait. */
async function waiting(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('wait', 'prioritized');
  return (counts.wait ?? 0) + (counts.prioritized ?? 0);
}

describe('scorer', () => {
  it('records every target and the combined score (sum of speedups), and the leaderboard row', async () => {
    const userId = await makeUser(db);
    fakeRunners();
    scorerFor(db);
    const id = await submit(userId);
    const s = await settled(id);
    expect(s.status).toBe('DONE');
    expect(s.verdict).toBe('ACCEPTED');
    expect(s.score).toBeCloseTo(2 + 3, 9);
    expect(s.judgings.every((j) => j.status === 'DONE' && j.verdict === 'ACCEPTED')).toBe(true);
    const board = await leaderboardEntries(db, 'wordcount');
    expect(board.find((r) => r.userId === userId)?.submissionId).toBe(id);
    // Each target's timed and warm-up runs, stored once.
    expect(await db.run.count({ where: { judging: { submissionId: id } } })).toBe(2 * (2 + 2 * 3));
    // Each judging timed the baseline on its host: that host's calibration per target is kept.
    const calibrations = await db.hostCalibration.findMany({
      select: { baselineMedianMs: true, runs: true },
    });
    expect(calibrations.length).toBeGreaterThanOrEqual(1);
    expect(calibrations.every((c) => c.baselineMedianMs === 100 && c.runs === 3)).toBe(true);
  });

  it('a judging that fails every attempt is recorded as JUDGE_ERROR and the submission settles FAILED', async () => {
    const userId = await makeUser(db);
    for (const t of TARGET_IDS)
      fakeRunner(t, () => (t === 'windows-amd' ? { fail: 'wine crashed' } : {}));
    scorerFor(db);
    const id = await submit(userId);
    const s = await settled(id);
    expect(s.status).toBe('FAILED');
    expect(s.verdict).toBe('JUDGE_ERROR');
    const byVerdict = s.judgings.map((j) => j.verdict).sort();
    expect(byVerdict).toEqual(['ACCEPTED', 'JUDGE_ERROR']);
    const failed = await db.judging.findFirstOrThrow({
      where: { submissionId: id, verdict: 'JUDGE_ERROR' },
      select: { result: true, message: true },
    });
    // The contestant reads that it is not their fault; organizers find the runner's reason.
    expect(failed.message).toMatch(/not of your patch/);
    expect(JSON.stringify(failed.result)).toContain('wine crashed');
  });

  it("a runner's answer that breaks the contract is recorded as JUDGE_ERROR, never trusted", async () => {
    const userId = await makeUser(db);
    for (const t of TARGET_IDS) fakeRunner(t, () => (t === 'linux-intel' ? { garbage: true } : {}));
    scorerFor(db);
    const id = await submit(userId);
    const s = await settled(id);
    expect(s).toMatchObject({ status: 'FAILED', verdict: 'JUDGE_ERROR', score: null });
    const bad = await db.judging.findFirstOrThrow({
      where: { submissionId: id, target: { name: 'linux-intel' } },
      select: { verdict: true, result: true },
    });
    expect(bad.verdict).toBe('JUDGE_ERROR');
    expect(JSON.stringify(bad.result)).toContain('breaks the contract');
  });

  it('marks a judging WAITING when a runner takes it, then JUDGING once it reports a stage past the wait', async () => {
    const userId = await makeUser(db);
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    let startJudging = () => {};
    const judgingStarts = new Promise<void>((resolve) => (startJudging = resolve));
    // linux-intel takes its job and waits (for the host, say); windows-amd starts judging.
    for (const t of TARGET_IDS)
      fakeRunner(t, () =>
        t === 'linux-intel'
          ? { hold: judgingStarts.then(() => hold), progress: false }
          : { hold, progress: true },
      );
    await scorerFor(db, { trackClaims: true }).ready();
    const id = await submit(userId);
    const statusOf = async () =>
      Object.fromEntries(
        (
          await db.judging.findMany({
            where: { submissionId: id },
            select: { status: true, target: { select: { name: true } } },
          })
        ).map((j) => [j.target.name, j.status]),
      );
    await until('the claims to be recorded', async () => {
      const s = await statusOf();
      return s['linux-intel'] === 'WAITING' && s['windows-amd'] === 'JUDGING';
    });
    expect((await submission(id)).status).toBe('JUDGING');
    const runners = await db.judging.findMany({
      where: { submissionId: id },
      select: { runner: true, attempts: true },
      orderBy: { runner: 'asc' },
    });
    expect(runners).toEqual([
      { runner: 'fake-linux-intel', attempts: 1 },
      { runner: 'fake-windows-amd', attempts: 1 },
    ]);
    startJudging();
    release();
    expect((await settled(id)).status).toBe('DONE');
  });

  it('a contestant fault on one target is final: DONE at once, the other target cancelled and told to stop', async () => {
    const userId = await makeUser(db);
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    const scored: string[][] = [];
    for (const t of TARGET_IDS)
      fakeRunner(t, () => (t === 'windows-amd' ? { verdict: 'BUILD_ERROR' } : { hold }));
    scorerFor(db, { onScored: (r) => scored.push(r.judgings.map((j) => j.outcome)) });
    const id = await submit(userId);
    // Settled while linux-intel is still being judged: it cannot make the submission count.
    const s = await settled(id);
    expect(s).toMatchObject({ status: 'DONE', verdict: 'BUILD_ERROR', score: null });
    const linux = await db.judging.findFirstOrThrow({
      where: { submissionId: id, target: { name: 'linux-intel' } },
      select: { id: true, round: true, status: true, message: true, verdict: true },
    });
    expect(linux).toMatchObject({
      status: 'CANCELLED',
      verdict: null,
      message: 'not judged: the submission failed on windows-amd',
    });
    // The flag its runner polls (runner/service/judging-processor.ts).
    expect(await producerRedis.get(judgingCancelKey(PREFIX, linux.id, linux.round))).toBe(
      'not judged: the submission failed on windows-amd',
    );
    // A result that arrives anyway changes nothing.
    release();
    await until('the late result', async () => scored.some((o) => o.includes('cancelled')));
    expect(await submission(id)).toMatchObject({ status: 'DONE', verdict: 'BUILD_ERROR' });
    expect(
      (await db.judging.findUniqueOrThrow({ where: { id: linux.id }, select: { status: true } }))
        .status,
    ).toBe('CANCELLED');
  });

  it('with judgeAllTargets the organizer gets every target judged after a contestant fault', async () => {
    const userId = await makeUser(db);
    await db.challenge.update({ where: { slug: 'wordcount' }, data: { judgeAllTargets: true } });
    try {
      for (const t of TARGET_IDS)
        fakeRunner(t, () => (t === 'windows-amd' ? { verdict: 'BUILD_ERROR' } : {}));
      scorerFor(db);
      const id = await submit(userId);
      const s = await until('both targets', async () => {
        const sub = await submission(id);
        return sub.status === 'DONE' && sub.judgings.every((j) => j.status === 'DONE') ? sub : null;
      });
      expect(s.verdict).toBe('BUILD_ERROR');
      expect(s.judgings.map((j) => j.verdict).sort()).toEqual(['ACCEPTED', 'BUILD_ERROR']);
    } finally {
      await db.challenge.update({ where: { slug: 'wordcount' }, data: { judgeAllTargets: false } });
    }
  });

  it('a result delivered twice (the score job run again) is recorded once: same runs, same score', async () => {
    const userId = await makeUser(db);
    fakeRunners();
    const scored: string[][] = [];
    scorerFor(db, { onScored: (r) => scored.push(r.judgings.map((j) => j.outcome)) });
    const id = await submit(userId);
    const first = await settled(id);
    const runsBefore = await db.run.findMany({
      where: { judging: { submissionId: id } },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    // A real second delivery through BullMQ: each completed parent runs again with its child.
    for (const judging of first.judgings) {
      const job = await until('the score job to complete', async () => {
        const j = await queues.scoreQueue().getJob(judgingScoreJobId(judging.id, judging.round));
        return j && (await j.isCompleted()) ? j : null;
      });
      await job.retry('completed');
    }
    await until('the second deliveries', async () => scored.length === 4);
    expect(scored.slice(2)).toEqual([['duplicate'], ['duplicate']]);
    const again = await submission(id);
    expect(again.score).toBe(first.score);
    expect(again.status).toBe('DONE');
    const runsAfter = await db.run.findMany({
      where: { judging: { submissionId: id } },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    expect(runsAfter).toEqual(runsBefore);
  });

  it('refuses a malformed score payload at once, without retries', async () => {
    const scorer = scorerFor(db);
    const events = new QueueEvents('score', { connection: workerConnection(), prefix: PREFIX });
    closers.push(() => events.close());
    await events.waitUntilReady();
    await scorer.worker.waitUntilReady();
    const failed = new Promise<string>((resolve) =>
      events.on('failed', ({ failedReason }) => resolve(failedReason)),
    );
    const job = await queues.scoreQueue().add('score', { submissionId: 42 }, { attempts: 5 });
    expect(await failed).toMatch(/invalid score job payload/);
    const state = await until('the job to fail', async () => {
      const j = await queues.scoreQueue().getJob(job.id as string);
      return j && (await j.isFailed()) ? j : null;
    });
    expect(state.attemptsMade).toBe(1);
  });

  it('PostgreSQL unreachable for a while: the score job fails, is retried, and the result is recorded', async () => {
    const userId = await makeUser(db);
    // The scorer reaches PostgreSQL through a TCP proxy this test opens and closes.
    const proxy = await startTcpProxy(new URL(database.url).port || '5432');
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const scorerDb = createDbClient(url.toString());
    closers.push(() => scorerDb.$disconnect());
    const failures: string[] = [];
    const scorer = scorerFor(scorerDb);
    scorer.worker.on('failed', (_job, error) => failures.push(error.message));

    await proxy.close();
    fakeRunners();
    const id = await submit(userId);
    await until('a failed scoring attempt', async () => failures.length >= 1, 20_000);
    expect((await submission(id)).status).not.toBe('DONE');
    await proxy.reopen();
    const s = await settled(id);
    expect(s).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
    expect(s.score).toBeCloseTo(5, 9);
    expect(await db.run.count({ where: { judging: { submissionId: id } } })).toBe(16);
  });

  it('keys lost from Redis (this prefix deleted, as FLUSHALL would): the reconciler re-queues and judging completes', async () => {
    const userId = await makeUser(db);
    scorerFor(db);
    const id = await submit(userId);
    // Only this file's prefix: FLUSHALL would wipe the keys of every other test on this server.
    expect(await deletePrefixKeys(producerRedis, PREFIX)).toBeGreaterThan(0);
    expect(await waiting(queues.judgeQueue('linux-intel'))).toBe(0);

    const report = await reconcile(db, queues, { olderThanMs: 0 });
    expect(report.requeued).toEqual([id]);
    // A second pass finds the jobs in place and adds nothing.
    const again = await reconcile(db, queues, { olderThanMs: 0 });
    expect(again.requeued).toEqual([]);
    expect(await waiting(queues.judgeQueue('linux-intel'))).toBe(1);

    fakeRunners();
    const s = await settled(id);
    expect(s).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
  });

  it('a target recorded before Redis loses every key is never judged again', async () => {
    const userId = await makeUser(db);
    // Only linux-intel has a runner: its result is recorded while windows-amd still waits.
    fakeRunner('linux-intel');
    scorerFor(db);
    const id = await submit(userId);
    await until('linux-intel recorded', async () => {
      const s = await submission(id);
      return s.judgings.some((j) => j.status === 'DONE');
    });
    const recorded = await db.judging.findFirstOrThrow({
      where: { submissionId: id, target: { name: 'linux-intel' } },
      select: { id: true, status: true, attempts: true, finishedAt: true, speedup: true },
    });
    expect(recorded).toMatchObject({ status: 'DONE', speedup: 2 });
    expect((await submission(id)).status).toBe('JUDGING');
    for (const close of closers.splice(0).reverse()) await close().catch(() => {});
    // As FLUSHALL would, for this file's keys only.
    expect(await deletePrefixKeys(producerRedis, PREFIX)).toBeGreaterThan(0);

    const report = await reconcile(db, queues, { olderThanMs: 0 });
    expect(report.requeued).toEqual([id]);
    expect(await waiting(queues.judgeQueue('linux-intel'))).toBe(0);
    expect(await waiting(queues.judgeQueue('windows-amd'))).toBe(1);

    calls.length = 0;
    fakeRunners();
    scorerFor(db);
    const s = await settled(id);
    expect(s).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
    expect(s.score).toBeCloseTo(5, 9);
    expect(calls.filter((c) => c.endsWith(`:${recorded.id}`))).toEqual([]);
    expect(
      await db.judging.findUniqueOrThrow({
        where: { id: recorded.id },
        select: { id: true, status: true, attempts: true, finishedAt: true, speedup: true },
      }),
    ).toEqual(recorded);
  });

  it('a score job that failed for good (a long outage) is retried by the reconciler', async () => {
    const userId = await makeUser(db);
    const proxy = await startTcpProxy(new URL(database.url).port || '5432');
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const scorerDb = createDbClient(url.toString());
    closers.push(() => scorerDb.$disconnect());
    await proxy.close();
    const finalFailure = new Promise<void>((resolve) => {
      const scorer = scorerFor(scorerDb);
      scorer.worker.on('failed', (job) => {
        if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) resolve();
      });
    });
    fakeRunners();
    const id = await submit(userId);
    await finalFailure;
    await proxy.reopen();
    const report = await reconcile(db, queues, { olderThanMs: 0 });
    expect(report.retried).toEqual([id]);
    const s = await settled(id);
    expect(s).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
  }, 60_000);
});

interface TcpProxy {
  port: number;
  /** Stops accepting and cuts every open connection: PostgreSQL is "down". */
  close(): Promise<void>;
  reopen(): Promise<void>;
}

/** A TCP proxy to 127.0.0.1:<targetPort> that can be taken down and brought back on the same port. */
async function startTcpProxy(targetPort: string): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(targetPort), '127.0.0.1');
        sockets.add(client).add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server?.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const close = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  closers.push(close);
  return { port, close, reopen: listen };
}
