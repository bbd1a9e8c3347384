// Submitting as a contestant (the web form and POST /api/submissions share submitForUser) against
// the real PostgreSQL and Redis: stored and queued; rejected with the intake's reason; refused when
// the contest is closed or past its deadline, past the hourly quota, or in a burst.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import type { Db } from '../../lib/server/db/client';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { SUBMIT_BURST } from '../../lib/server/queue/rate-limit';
import { submitForUser, submitInputSchema } from '../../lib/server/web/submit-for-user';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser, registerChallenge } from '../../dev/db-fixtures';
import { deleteKeys } from '../helpers/queue';

const SUBMISSIONS = path.join(REPO_ROOT, 'challenges/wordcount/submissions');
const GOOD = readFileSync(path.join(SUBMISSIONS, 'accepted/baseline-copy.patch'), 'utf8');
const PROTECTED = readFileSync(path.join(SUBMISSIONS, 'rejected/touches-main-cpp.patch'), 'utf8');
const PREFIX = `test-web-submit-${randomBytes(4).toString('hex')}`;

let database: TestDatabase;
let db: Db;
let redis: Redis;
let queues: QueueSet;

const input = (patch = GOOD) => submitInputSchema.parse({ challenge: 'wordcount', patch });

async function setChallenge(data: {
  submissionsPerHour?: number | null;
  closedAt?: Date | null;
  deadline?: Date | null;
}): Promise<void> {
  await db.challenge.update({ where: { slug: 'wordcount' }, data });
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await registerChallenge(db);
  redis = new Redis(env().REDIS_URL, { maxRetriesPerRequest: null });
  queues = createQueueSet({ connection: redis, prefix: PREFIX });
});

afterAll(async () => {
  await queues?.close();
  if (redis) {
    await deleteKeys(redis, `${PREFIX}:*`);
    await redis.quit();
  }
  await database?.drop();
});

describe('submitForUser', () => {
  it('stores a good patch with a judging per target and queues it', async () => {
    const userId = await makeUser(db);
    const outcome = await submitForUser(userId, input(), { db, queues });
    expect(outcome).toMatchObject({ ok: true, queued: true });
    if (!outcome.ok) return;
    const stored = await db.submission.findUniqueOrThrow({
      where: { id: outcome.submissionId },
      select: { userId: true, patchText: true, _count: { select: { judgings: true } } },
    });
    expect(stored).toEqual({ userId, patchText: GOOD, _count: { judgings: 2 } });
  });

  it('rejects a patch that touches the harness, naming the file, and stores nothing', async () => {
    const userId = await makeUser(db);
    const outcome = await submitForUser(userId, input(PROTECTED), { db, queues });
    expect(outcome).toMatchObject({
      ok: false,
      code: 'rejected',
      reason: 'protected-file',
      file: 'main.cpp',
    });
    expect(await db.submission.count({ where: { userId } })).toBe(0);
  });

  it('refuses past the hourly quota and says when the next slot frees', async () => {
    await setChallenge({ submissionsPerHour: 2 });
    try {
      const userId = await makeUser(db);
      const t0 = new Date();
      for (let i = 0; i < 2; i++)
        expect((await submitForUser(userId, input(), { db, queues, now: t0 })).ok).toBe(true);
      const third = await submitForUser(userId, input(), { db, queues, now: t0 });
      expect(third).toMatchObject({ ok: false, code: 'quota' });
      if (third.ok) return;
      expect(third.retryAfterSeconds).toBeGreaterThan(3500);
      // The rows carry the database clock, a moment after t0.
      expect(third.retryAfterSeconds).toBeLessThanOrEqual(3610);
      expect(third.message).toMatch(/2 submissions for this hour/);
      // An hour later the quota has room again.
      const later = new Date(t0.getTime() + 3601_000);
      expect((await submitForUser(userId, input(), { db, queues, now: later })).ok).toBe(true);
    } finally {
      await setChallenge({ submissionsPerHour: null });
    }
  });

  it(`refuses a burst of more than ${SUBMIT_BURST.max} a minute even within the quota`, async () => {
    await setChallenge({ submissionsPerHour: 100 });
    try {
      const userId = await makeUser(db);
      const outcomes = [];
      for (let i = 0; i <= SUBMIT_BURST.max; i++)
        outcomes.push(await submitForUser(userId, input(), { db, queues }));
      expect(outcomes.slice(0, SUBMIT_BURST.max).every((o) => o.ok)).toBe(true);
      expect(outcomes[SUBMIT_BURST.max]).toMatchObject({ ok: false, code: 'burst' });
    } finally {
      await setChallenge({ submissionsPerHour: null });
    }
  });

  it('refuses once the organizers closed the contest or the deadline passed', async () => {
    const userId = await makeUser(db);
    await setChallenge({ closedAt: new Date() });
    expect(await submitForUser(userId, input(), { db, queues })).toMatchObject({
      ok: false,
      code: 'closed',
    });
    await setChallenge({ closedAt: null, deadline: new Date(Date.now() - 1000) });
    const late = await submitForUser(userId, input(), { db, queues });
    expect(late).toMatchObject({ ok: false, code: 'closed' });
    if (!late.ok) expect(late.message).toMatch(/deadline has passed/);
    await setChallenge({ deadline: new Date(Date.now() + 86400_000) });
    expect((await submitForUser(userId, input(), { db, queues })).ok).toBe(true);
    await setChallenge({ deadline: null });
    expect(await db.submission.count({ where: { userId } })).toBe(1);
  });

  it('refuses an unknown challenge and an empty patch at the schema', async () => {
    const userId = await makeUser(db);
    expect(
      await submitForUser(userId, { challenge: 'no-such-contest', patch: GOOD }, { db, queues }),
    ).toMatchObject({ ok: false, code: 'unknown-challenge' });
    const empty = submitInputSchema.safeParse({ challenge: 'wordcount', patch: '' });
    expect(empty.success).toBe(false);
    // An unedited kit's `git diff`: the contestant is told why it is empty.
    expect(empty.error?.issues[0]?.message).toMatch(/nothing changed.*still the template's copy/);
    expect(submitInputSchema.safeParse({ challenge: '../etc', patch: GOOD }).success).toBe(false);
  });
});
