// The fair queue against the real PostgreSQL and Redis: a contestant's burst of submissions does not
// delay another contestant's first one (BullMQ hands a worker the jobs in that order, and the queue
// position counts the same way), and with the organizer's setting a newer submission supersedes the
// author's own still-queued one: settled as superseded (nothing lost), its jobs withdrawn.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeQueueName, judgingJobSchema } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import { countJudgingsAhead } from '../../lib/server/db/judgings/get-target-queue-figures';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser, registerChallenge } from '../../dev/db-fixtures';
import { createTestQueues, type TestQueues } from '../helpers/queue';

const PATCH = readFileSync(
  path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
  'utf8',
);

let t: TestDatabase;
let q: TestQueues;
let queues: QueueSet;

beforeAll(async () => {
  t = await createTestDatabase();
  await registerChallenge(t.db);
  q = await createTestQueues('fair-queue');
  queues = createQueueSet({ connection: q.redis, prefix: q.prefix });
});
afterAll(async () => {
  await queues?.close();
  await q?.cleanup();
  await t?.drop();
});

async function submit(userId: string) {
  const s = await submitPatch({
    db: t.db,
    queues,
    userId,
    challengeSlug: 'wordcount',
    patchText: PATCH,
  });
  if (!s.ok) throw new Error(s.message);
  expect(s.queued).toBe(true);
  return s;
}

/** The submission ids of the linux-intel jobs in the order a runner is handed them. */
async function takeAll(count: number): Promise<string[]> {
  const worker = new Worker(judgeQueueName('linux-intel'), null, {
    connection: q.redis.duplicate(),
    prefix: q.prefix,
  });
  const order: string[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const job = await worker.getNextJob(`token-${i}`);
      if (!job) break;
      order.push(judgingJobSchema.parse(job.data).submissionId);
    }
  } finally {
    await worker.close();
  }
  return order;
}

describe('fair queue', () => {
  it("one contestant's burst does not delay another's first submission", async () => {
    const [burst, other] = [await makeUser(t.db), await makeUser(t.db)];
    const mine = [await submit(burst), await submit(burst), await submit(burst)];
    const theirs = await submit(other);
    const stored = await t.db.judging.findMany({
      where: { target: { name: 'linux-intel' } },
      select: { submissionId: true, queuePriority: true, id: true, queuedAt: true },
    });
    const priority = (id: string) => stored.find((j) => j.submissionId === id)!.queuePriority;
    expect(mine.map((s) => priority(s.submissionId))).toEqual([1, 2, 3]);
    expect(priority(theirs.submissionId)).toBe(1);
    // Its place on the page: only the burst's first is ahead of it.
    const row = stored.find((j) => j.submissionId === theirs.submissionId)!;
    expect(await countJudgingsAhead(t.db, { judgingId: row.id, queuedAt: row.queuedAt })).toBe(1);
    // And a runner is handed them in that order.
    expect(await takeAll(4)).toEqual([
      mine[0]!.submissionId,
      theirs.submissionId,
      mine[1]!.submissionId,
      mine[2]!.submissionId,
    ]);
  });

  it('with the setting on, a newer submission supersedes the author’s own queued one', async () => {
    await t.db.challenge.update({ where: { slug: 'wordcount' }, data: { supersedeQueued: true } });
    try {
      const [author, bystander] = [await makeUser(t.db), await makeUser(t.db)];
      const untouched = await submit(bystander);
      const older = await submit(author);
      const newer = await submit(author);
      const row = await t.db.submission.findUniqueOrThrow({
        where: { id: older.submissionId },
        select: {
          status: true,
          verdict: true,
          supersededById: true,
          patchText: true,
          judgings: { select: { status: true, message: true } },
        },
      });
      expect(row).toMatchObject({
        status: 'DONE',
        verdict: null,
        supersededById: newer.submissionId,
        patchText: PATCH,
      });
      for (const j of row.judgings) {
        expect(j.status).toBe('CANCELLED');
        expect(j.message).toContain(newer.submissionId);
      }
      // Its jobs are gone from the queues; the newer one's and the bystander's wait.
      const queue = queues.judgeQueue('linux-intel');
      const jobs = await queue.getJobs(['prioritized', 'wait']);
      const queued = new Set(jobs.map((j) => judgingJobSchema.parse(j.data).submissionId));
      expect(queued.has(older.submissionId)).toBe(false);
      expect(queued.has(newer.submissionId)).toBe(true);
      expect(queued.has(untouched.submissionId)).toBe(true);
      const others = await t.db.submission.findMany({
        where: { id: { in: [newer.submissionId, untouched.submissionId] } },
        select: { status: true },
      });
      expect(others.map((s) => s.status)).toEqual(['QUEUED', 'QUEUED']);
    } finally {
      await t.db.challenge.update({
        where: { slug: 'wordcount' },
        data: { supersedeQueued: false },
      });
    }
  });

  it('with the setting off (the default), every submission is judged', async () => {
    const author = await makeUser(t.db);
    const first = await submit(author);
    await submit(author);
    const row = await t.db.submission.findUniqueOrThrow({
      where: { id: first.submissionId },
      select: { status: true, supersededById: true },
    });
    expect(row).toEqual({ status: 'QUEUED', supersededById: null });
  });
});
