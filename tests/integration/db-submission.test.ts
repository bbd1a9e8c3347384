// Submissions against the real PostgreSQL: stored with one judging per target in one transaction,
// claimed by runners, listed for the reconciler, read back as job payloads.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJudging } from '../../lib/server/db/judgings/claim-judging';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { NotFoundError } from '../../lib/server/db/errors';
import { getJudgingJob } from '../../lib/server/db/judgings/get-judging-job';
import { listUnqueuedJudgings } from '../../lib/server/db/judgings/list-unqueued-judgings';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser, registerChallenge } from '../../dev/db-fixtures';

const PATCH =
  'diff --git a/wordcount.cpp b/wordcount.cpp\n--- a/wordcount.cpp\n+++ b/wordcount.cpp\n';

let t: TestDatabase;
let userId: string;
/** The registered version: the manifest's. */
let version: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
  userId = await makeUser(t.db);
});
afterAll(async () => {
  await t?.drop();
});

describe('createSubmission', () => {
  it('stores the patch with its hash and size and one queued judging per target', async () => {
    const created = await createSubmission(t.db, {
      userId,
      challengeSlug: 'wordcount',
      patchText: PATCH,
    });
    expect(created.challenge).toEqual({ slug: 'wordcount', version });
    expect(created.judgings.map((j) => [j.target, j.round])).toEqual([
      ['linux-intel', 0],
      ['windows-amd', 0],
    ]);
    const row = await t.db.submission.findUniqueOrThrow({
      where: { id: created.submissionId },
      include: { judgings: true },
    });
    expect(row.status).toBe('QUEUED');
    expect(row.patchSha256).toBe(createHash('sha256').update(PATCH).digest('hex'));
    expect(row.patchBytes).toBe(Buffer.byteLength(PATCH));
    expect(row.judgings.map((j) => j.status)).toEqual(['QUEUED', 'QUEUED']);
  });

  it('stores nothing when one judging cannot be stored', async () => {
    // A trigger makes the second target's insert fail after the submission row was written.
    await t.db.$executeRawUnsafe(`
      CREATE FUNCTION refuse_windows() RETURNS trigger AS $$
      BEGIN
        IF (SELECT name FROM "Target" WHERE id = NEW."targetId") = 'windows-amd' THEN
          RAISE EXCEPTION 'refused for the test';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await t.db.$executeRawUnsafe(
      `CREATE TRIGGER refuse_windows BEFORE INSERT ON "Judging" FOR EACH ROW EXECUTE FUNCTION refuse_windows()`,
    );
    const before = await t.db.submission.count();
    try {
      await expect(
        createSubmission(t.db, { userId, challengeSlug: 'wordcount', patchText: 'x' }),
      ).rejects.toThrow(/refused for the test/);
      expect(await t.db.submission.count()).toBe(before);
      expect(await t.db.judging.count({ where: { submission: { patchText: 'x' } } })).toBe(0);
    } finally {
      await t.db.$executeRawUnsafe(`DROP TRIGGER refuse_windows ON "Judging"`);
      await t.db.$executeRawUnsafe(`DROP FUNCTION refuse_windows()`);
    }
  });

  it('refuses an unknown challenge or version', async () => {
    await expect(
      createSubmission(t.db, { userId, challengeSlug: 'nope', patchText: PATCH }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      createSubmission(t.db, { userId, challengeSlug: 'wordcount', version: 9, patchText: PATCH }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('claimJudging', () => {
  it('counts attempts, marks the submission judging, and refuses a stale round', async () => {
    const { submissionId, judgings } = await createSubmission(t.db, {
      userId,
      challengeSlug: 'wordcount',
      patchText: PATCH,
    });
    const [linux] = judgings;
    if (!linux) throw new Error('no judging');
    const claim = (runner: string, status: 'WAITING' | 'JUDGING', round = 0) =>
      claimJudging(t.db, { judgingId: linux.judgingId, round, runner, status });
    // Taken from the queue: waiting for the host lock, the submission still queued.
    expect(await claim('r1', 'WAITING')).toEqual({ claimed: true, attempts: 1 });
    expect(await t.db.judging.findUniqueOrThrow({ where: { id: linux.judgingId } })).toMatchObject({
      status: 'WAITING',
      runner: 'r1',
    });
    expect((await t.db.submission.findUniqueOrThrow({ where: { id: submissionId } })).status).toBe(
      'QUEUED',
    );
    expect(await claim('r1', 'JUDGING')).toEqual({ claimed: true, attempts: 1 });
    // The runner died; the queue hands the job to another one: a second attempt.
    expect(await claim('r2', 'WAITING')).toEqual({ claimed: true, attempts: 2 });
    expect(await claim('r2', 'JUDGING')).toEqual({ claimed: true, attempts: 2 });
    // A late progress event changes nothing once it is judging.
    expect(await claim('r2', 'JUDGING')).toEqual({ claimed: false, reason: 'done' });
    expect(
      await claimJudging(t.db, { judgingId: linux.judgingId, round: 1, runner: 'r2' }),
    ).toEqual({ claimed: false, reason: 'stale-round' });
    expect(await claimJudging(t.db, { judgingId: 'missing', round: 0, runner: 'r2' })).toEqual({
      claimed: false,
      reason: 'not-found',
    });
    const judging = await t.db.judging.findUniqueOrThrow({ where: { id: linux.judgingId } });
    expect(judging).toMatchObject({ status: 'JUDGING', runner: 'r2', attempts: 2 });
    const submission = await t.db.submission.findUniqueOrThrow({ where: { id: submissionId } });
    expect(submission.status).toBe('JUDGING');
  });
});

describe('listUnqueuedJudgings and getJudgingJob', () => {
  it('lists waiting and running judgings older than the cut-off, with their job payload', async () => {
    const { judgings } = await createSubmission(t.db, {
      userId,
      challengeSlug: 'wordcount',
      patchText: PATCH,
    });
    const ids = judgings.map((j) => j.judgingId);
    const later = await listUnqueuedJudgings(t.db, { olderThan: new Date(Date.now() + 60_000) });
    expect(later.map((j) => j.judgingId)).toEqual(expect.arrayContaining(ids));
    expect(later.every((j) => ['QUEUED', 'WAITING', 'JUDGING'].includes(j.status))).toBe(true);
    const earlier = await listUnqueuedJudgings(t.db, { olderThan: new Date(Date.now() - 60_000) });
    expect(earlier).toEqual([]);

    const job = await getJudgingJob(t.db, ids[0] ?? '');
    expect(job).toMatchObject({
      judgingId: ids[0],
      round: 0,
      challenge: { slug: 'wordcount', version },
      target: 'linux-intel',
      patchText: PATCH,
    });
    expect(await getJudgingJob(t.db, 'missing')).toBeNull();
  });
});
