// The producer side against the real PostgreSQL and Redis: a submission is checked, committed, then
// queued as one flow; enqueuing again adds nothing; with Redis unreachable it is stored all the
// same and the reconciler queues it later; a rejudge queues a new round and withdraws the old one.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgingJobId,
  judgingJobSchema,
  judgingScoreJobId,
  scoreJobId,
  scoreJobSchema,
} from '../../contracts';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import type { Db } from '../../lib/server/db/client';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { enqueueSubmission } from '../../lib/server/submit/enqueue-submission';
import { rejudge, REJUDGE_PRIORITY } from '../../lib/server/submit/rejudge';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { reconcile } from '../../scorer/reconcile';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';
import { flushKeys } from '../../dev/redis-keys';

const SUBMISSIONS = path.join(REPO_ROOT, 'challenges/wordcount/submissions');
const PATCH = readFileSync(path.join(SUBMISSIONS, 'accepted/baseline-copy.patch'), 'utf8');
const REDIS_URL = env().REDIS_URL;
/** This file's own key prefix, deleted afterwards (never FLUSHALL: other tests share the server). */
const PREFIX = `test-backbone-${randomBytes(4).toString('hex')}`;

let database: TestDatabase;
let db: Db;
let redis: Redis;
let queues: QueueSet;
let organizerId: string;
/** The registered version: the manifest's. */
let version: number;

async function deletePrefixKeys(prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

/** A port nothing listens on: Redis there is "down". */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function submitOk(userId: string, patchText = PATCH, q = queues) {
  const result = await submitPatch({
    db,
    queues: q,
    userId,
    challengeSlug: 'wordcount',
    patchText,
  });
  if (!result.ok) throw new Error(`rejected: ${result.message}`);
  return result;
}

async function jobIds(queueName: string): Promise<string[]> {
  const jobs = await queues
    .queue(queueName)
    .getJobs(['wait', 'prioritized', 'waiting-children', 'delayed']);
  return jobs.map((j) => j.id as string).sort();
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  ({ version } = await registerChallenge(db));
  organizerId = (
    await db.user.create({
      data: { email: 'organizer@example.test', name: 'Organizer', role: 'ORGANIZER' },
      select: { id: true },
    })
  ).id;
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  queues = createQueueSet({ connection: redis, prefix: PREFIX });
});

afterAll(async () => {
  await queues?.close();
  if (redis) {
    await deletePrefixKeys(PREFIX);
    await redis.quit();
  }
  await database?.drop();
});

describe('submitPatch and the producer', () => {
  it('commits the submission, then queues one flow per target: a score parent over its judging, with the contract payloads', async () => {
    const userId = await makeUser(db);
    const result = await submitOk(userId);
    expect(result.queued).toBe(true);
    expect(result.judgings.map((j) => j.target)).toEqual(['linux-intel', 'windows-amd']);
    // No parent for the whole submission any more: each target is recorded on its own.
    expect(await queues.scoreQueue().getJob(scoreJobId(result.submissionId, 0))).toBeUndefined();

    for (const j of result.judgings) {
      const parent = await queues.scoreQueue().getJob(judgingScoreJobId(j.judgingId, j.round));
      expect(parent).toBeDefined();
      expect(scoreJobSchema.parse(parent?.data)).toEqual({
        submissionId: result.submissionId,
        round: 0,
      });
      expect(await parent?.getState()).toBe('waiting-children');
      expect(parent?.opts.attempts).toBeGreaterThan(1);
    }

    for (const j of result.judgings) {
      const child = await queues
        .judgeQueue(j.target as 'linux-intel')
        .getJob(judgingJobId(j.judgingId, j.round));
      expect(child).toBeDefined();
      const data = judgingJobSchema.parse(child?.data);
      expect(data).toMatchObject({
        judgingId: j.judgingId,
        submissionId: result.submissionId,
        challenge: { slug: 'wordcount', version },
        target: j.target,
        patchText: PATCH,
      });
      expect(child?.opts).toMatchObject({
        attempts: 3,
        backoff: { type: 'exponential', delay: 30_000 },
        removeOnComplete: { age: expect.any(Number), count: expect.any(Number) },
        removeOnFail: { age: expect.any(Number), count: expect.any(Number) },
      });
      expect(child?.parentKey).toBe(`${PREFIX}:score:${judgingScoreJobId(j.judgingId, j.round)}`);
    }
    const stored = await db.submission.findUniqueOrThrow({
      where: { id: result.submissionId },
      select: { status: true, patchText: true },
    });
    expect(stored).toEqual({ status: 'QUEUED', patchText: PATCH });
  });

  it('enqueuing the same submission again adds no job', async () => {
    const userId = await makeUser(db);
    const { submissionId } = await submitOk(userId);
    const before = {
      linux: await jobIds('judge-linux-intel'),
      windows: await jobIds('judge-windows-amd'),
      score: await jobIds('score'),
    };
    await enqueueSubmission(db, queues, submissionId);
    await Promise.all([
      enqueueSubmission(db, queues, submissionId),
      enqueueSubmission(db, queues, submissionId),
    ]);
    expect({
      linux: await jobIds('judge-linux-intel'),
      windows: await jobIds('judge-windows-amd'),
      score: await jobIds('score'),
    }).toEqual(before);
    const { judgings } = await db.submission.findUniqueOrThrow({
      where: { id: submissionId },
      select: { judgings: { select: { id: true } } },
    });
    expect(before.score.filter((id) => judgings.some((j) => id.includes(j.id)))).toHaveLength(2);
  });

  it('refuses an obviously bad patch with its reason, and stores nothing', async () => {
    const userId = await makeUser(db);
    const cases: [string, string][] = [
      [
        readFileSync(path.join(SUBMISSIONS, 'rejected/touches-main-cpp.patch'), 'utf8'),
        'protected-file',
      ],
      [readFileSync(path.join(SUBMISSIONS, 'rejected/parent-path.patch'), 'utf8'), 'unsafe-path'],
      ['   \n', 'empty'],
      ['hello, judge\n', 'not-a-patch'],
      [`${PATCH}${'+'.repeat(1024 * 1024)}`, 'too-large'],
    ];
    for (const [patchText, reason] of cases) {
      const result = await submitPatch({
        db,
        queues,
        userId,
        challengeSlug: 'wordcount',
        patchText,
      });
      expect(result).toMatchObject({ ok: false, reason });
      if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
    }
    const unknown = await submitPatch({
      db,
      queues,
      userId,
      challengeSlug: 'no-such',
      patchText: PATCH,
    });
    expect(unknown).toMatchObject({ ok: false, reason: 'unknown-challenge' });
    expect(await db.submission.count({ where: { userId } })).toBe(0);
  });

  it('with Redis unreachable the submission is stored (QUEUED) and its id returned; the reconciler queues it once', async () => {
    const userId = await makeUser(db);
    const down = new Redis(`redis://127.0.0.1:${await closedPort()}`, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: () => 200,
    });
    down.on('error', () => {});
    const downQueues = createQueueSet(
      { connection: down, prefix: PREFIX, enqueueTimeoutMs: 500 },
      () => {},
    );
    const errors: string[] = [];
    try {
      const started = Date.now();
      const result = await submitPatch({
        db,
        queues: downQueues,
        userId,
        challengeSlug: 'wordcount',
        patchText: PATCH,
        onEnqueueError: (error) => errors.push(error.message),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      if (!result.ok) throw new Error(result.message);
      expect(result.queued).toBe(false);
      expect(errors[0]).toMatch(/Redis did not answer/);
      const stored = await db.submission.findUniqueOrThrow({
        where: { id: result.submissionId },
        select: { status: true, judgings: { select: { status: true } } },
      });
      expect(stored.status).toBe('QUEUED');
      expect(stored.judgings.map((j) => j.status)).toEqual(['QUEUED', 'QUEUED']);
      const parents = result.judgings.map((j) => judgingScoreJobId(j.judgingId, j.round));
      for (const id of parents) expect(await queues.scoreQueue().getJob(id)).toBeUndefined();

      // Redis works again (the real one): the reconciler finds the submission and queues it.
      const report = await reconcile(db, queues, { olderThanMs: 0 });
      expect(report.requeued).toContain(result.submissionId);
      for (const id of parents) expect(await queues.scoreQueue().getJob(id)).toBeDefined();
      const second = await reconcile(db, queues, { olderThanMs: 0 });
      expect(second.requeued).toEqual([]);
      expect((await jobIds('score')).filter((id) => parents.includes(id))).toHaveLength(2);
    } finally {
      await downQueues.close();
      down.disconnect();
    }
  });

  it('the reconciler leaves recent judgings alone (their enqueue may be under way)', async () => {
    const userId = await makeUser(db);
    const { submissionId, judgings } = await submitOk(userId);
    for (const j of judgings)
      await queues
        .scoreQueue()
        .remove(judgingScoreJobId(j.judgingId, j.round), { removeChildren: true });
    const report = await reconcile(db, queues, { olderThanMs: 60_000 });
    expect(report.requeued).not.toContain(submissionId);
  });
});

describe('rejudge', () => {
  it('of one submission: a new round in the database and in the queue, the old round withdrawn, the action audited', async () => {
    const userId = await makeUser(db);
    const { submissionId, judgings } = await submitOk(userId);
    const outcome = await rejudge({
      db,
      queues,
      actorId: organizerId,
      reason: 'new input',
      submissionId,
    });
    expect(outcome).toEqual({ submissions: 1, judgings: 2, queued: 1 });

    for (const j of judgings) {
      expect(await queues.scoreQueue().getJob(judgingScoreJobId(j.judgingId, 0))).toBeUndefined();
      expect(await queues.scoreQueue().getJob(judgingScoreJobId(j.judgingId, 1))).toBeDefined();
    }
    for (const j of judgings) {
      const q = queues.judgeQueue(j.target as 'linux-intel');
      expect(await q.getJob(judgingJobId(j.judgingId, 0))).toBeUndefined();
      const child = await q.getJob(judgingJobId(j.judgingId, 1));
      expect(judgingJobSchema.parse(child?.data).round).toBe(1);
      expect(child?.opts.priority ?? 0).toBe(0);
    }
    const audit = await db.auditLog.findFirstOrThrow({
      where: { action: 'rejudge.submission', subjectId: submissionId },
      select: { actorId: true, reason: true },
    });
    expect(audit).toEqual({ actorId: organizerId, reason: 'new input' });
  });

  it('of a whole challenge: every submission gets a new round, queued behind new submissions', async () => {
    const userId = await makeUser(db);
    const { submissionId, judgings } = await submitOk(userId);
    const total = await db.submission.count();
    const outcome = await rejudge({
      db,
      queues,
      actorId: organizerId,
      reason: 'benchmark input changed',
      challengeSlug: 'wordcount',
    });
    expect(outcome.submissions).toBe(total);
    expect(outcome.queued).toBe(total);
    const j = judgings[0];
    if (!j) throw new Error('no judging');
    const round = (await db.judging.findUniqueOrThrow({ where: { id: j.judgingId } })).round;
    const child = await queues
      .judgeQueue(j.target as 'linux-intel')
      .getJob(judgingJobId(j.judgingId, round));
    expect(child?.opts.priority).toBe(REJUDGE_PRIORITY);
    expect(await queues.scoreQueue().getJob(judgingScoreJobId(j.judgingId, round))).toBeDefined();
    expect(submissionId).toBeTruthy();
  });
});

describe('the reconciler and the scorer at the same moment', () => {
  /** Takes the queue's next job and completes it (or only takes it), as a runner or the scorer would. */
  async function completeNext(
    name: string,
    q: QueueSet,
    value: unknown,
    { keepActive = false } = {},
  ): Promise<void> {
    const worker = new Worker(name, null, { connection: redis, prefix: q.prefix, autorun: false });
    try {
      const token = randomBytes(8).toString('hex');
      const job = await worker.getNextJob(token);
      if (!job) throw new Error(`no job waiting in ${name}`);
      if (!keepActive) await job.moveToCompleted(value, token, false);
    } finally {
      await worker.close();
    }
  }

  it('calls stuck neither a judging recorded between its listing and the look at Redis, nor one a runner holds after a Redis loss', async () => {
    // A database and a prefix of its own: the reconciler sees only this test's submissions, and
    // the next job of each queue is this test's.
    const own = await createTestDatabase();
    const q = createQueueSet({ connection: redis, prefix: `${PREFIX}-race` });
    try {
      const { version: ownVersion } = await registerChallenge(own.db);
      const submit = async () => {
        const result = await submitPatch({
          db: own.db,
          queues: q,
          userId: await makeUser(own.db),
          challengeSlug: 'wordcount',
          patchText: PATCH,
        });
        if (!result.ok) throw new Error(result.message);
        const linux = result.judgings.find((j) => j.target === 'linux-intel')!;
        // Its runner answered and the scorer's job completed; the database still says JUDGING.
        await completeNext('judge-linux-intel', q, {});
        await completeNext('score', q, {});
        await own.db.judging.update({
          where: { id: linux.judgingId },
          data: { status: 'JUDGING' },
        });
        return { ...result, linux };
      };
      // Truly stuck: the queue is done with it, the database never heard. Reported.
      const stuck = await submit();
      expect((await reconcile(own.db, q, { olderThanMs: 0 })).stuck).toEqual([stuck.submissionId]);
      await own.db.judging.update({
        where: { id: stuck.linux.judgingId },
        data: { status: 'DONE' },
      });

      // The scorer commits just after the reconciler listed the judging: done, not stuck.
      const racing = await submit();
      let listed = false;
      const racingDb = own.db.$extends({
        query: {
          judging: {
            async findMany({ args, query }) {
              const rows = await query(args);
              if (!listed) {
                listed = true;
                await recordJudgingResult(own.db, {
                  judgingId: racing.linux.judgingId,
                  round: racing.linux.round,
                  result: makeResult({
                    slug: 'wordcount',
                    version: ownVersion,
                    target: 'linux-intel',
                    judgingId: racing.linux.judgingId,
                  }),
                });
              }
              return rows;
            },
          },
        },
      }) as unknown as Db;
      const report = await reconcile(racingDb, q, { olderThanMs: 0 });
      expect(listed).toBe(true);
      expect(report.checked).toBeGreaterThanOrEqual(1);
      expect(report.stuck).toEqual([]);

      // Just after a Redis loss: a runner still holds the judging's job, its score parent is
      // gone. Not stuck while the runner holds it: the next pass repairs what its end leaves.
      const held = await submit();
      const windows = held.judgings.find((j) => j.target === 'windows-amd')!;
      await flushKeys(redis, `${PREFIX}-race:*`);
      await q.judgeQueue('windows-amd').add(
        'judge',
        {},
        {
          jobId: judgingJobId(windows.judgingId, windows.round),
        },
      );
      await completeNext('judge-windows-amd', q, undefined, { keepActive: true });
      const afterLoss = await reconcile(own.db, q, { olderThanMs: 0 });
      expect(afterLoss.stuck).toEqual([]);
    } finally {
      await q.close();
      await deletePrefixKeys(`${PREFIX}-race`);
      await own.drop();
    }
  });
});
