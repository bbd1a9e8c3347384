// The organizer console's data functions and actions against a real private PostgreSQL schema:
// filters and keyset pages (also over 20,000 submissions), settings validation and their way into
// judging jobs, close/publish, disqualify/reinstate with the leaderboard, the audit rows, and an
// action refused to a contestant.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ZodError } from 'zod';
import { judgingJobSchema, type Verdict } from '../../contracts';
import { closeContest } from '../../lib/server/db/contest/close-contest';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { disqualifySubmission } from '../../lib/server/db/submissions/disqualify-submission';
import { NotFoundError } from '../../lib/server/db/errors';
import { getChallengeSettings } from '../../lib/server/db/contest/get-challenge-settings';
import { getContest } from '../../lib/server/db/contest/get-contest';
import { getJudgingJob } from '../../lib/server/db/judgings/get-judging-job';
import { listAuditLog } from '../../lib/server/db/audit/list-audit-log';
import { listSubmissionsForOrganizer } from '../../lib/server/db/submissions/list-submissions-for-organizer';
import { publishSolutions } from '../../lib/server/db/contest/publish-solutions';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { reinstateSubmission } from '../../lib/server/db/submissions/reinstate-submission';
import { updateContestSettings } from '../../lib/server/db/contest/update-contest-settings';
import { parseOrganizerFilters } from '../../lib/server/web/organizer-filters';
import { settingsFormSchema } from '../../lib/server/web/organizer-settings-form';
import { canViewPatch } from '../../lib/core/access/patch-access';
import type { SessionUser } from '../../lib/server/web/session';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

// The actions ask the session who is calling (Next's request headers); the test says who.
const session = vi.hoisted(() => ({ user: null as SessionUser | null }));
vi.mock('../../lib/server/web/session', () => ({ currentUser: async () => session.user }));
// revalidatePath needs Next's request store; outside Next there is no cache to refresh.
vi.mock('next/cache', () => ({ revalidatePath: () => {} }));

let t: TestDatabase;
let organizerId: string;
let ada: string;
let bob: string;
/** The registered version: the manifest's, as the runners' results carry it. */
let version: number;

beforeAll(async () => {
  t = await createTestDatabase();
  // The actions use the process's one client (lib/server/db/client.ts keeps it on globalThis).
  (globalThis as { perfjudgeDb?: unknown }).perfjudgeDb = t.db;
  ({ version } = await registerChallenge(t.db));
  await registerChallenge(t.db, { slug: 'other' });
  organizerId = await makeUser(t.db, 'organizer');
  await t.db.user.update({ where: { id: organizerId }, data: { role: 'ORGANIZER' } });
  ada = await makeUser(t.db, 'ada');
  bob = await makeUser(t.db, 'Bob Builder');
});
afterAll(async () => {
  await t?.drop();
});

/** A submission made at a given time, judged when a verdict per target is given. */
async function submission(
  userId: string,
  at: Date,
  verdicts?: { 'linux-intel': Verdict; 'windows-amd': Verdict },
  slug = 'wordcount',
  speedup = 2,
) {
  const { submissionId, judgings } = await createSubmission(t.db, {
    userId,
    challengeSlug: slug,
    patchText: `--- a/wordcount.cpp\n+++ b/wordcount.cpp\n@@ -1 +1 @@\n-a\n+b ${at.getTime()}\n`,
  });
  await t.db.submission.update({ where: { id: submissionId }, data: { createdAt: at } });
  if (verdicts)
    for (const j of judgings) {
      const target = j.target as 'linux-intel' | 'windows-amd';
      await recordJudgingResult(t.db, {
        judgingId: j.judgingId,
        round: j.round,
        result: makeResult({ slug, version, target, verdict: verdicts[target], speedup }),
      });
    }
  return submissionId;
}

const minute = (m: number) => new Date(Date.UTC(2026, 10, 20, 12, m));

describe('listing submissions for organizers', () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    ids.accepted = await submission(ada, minute(1), {
      'linux-intel': 'ACCEPTED',
      'windows-amd': 'ACCEPTED',
    });
    ids.wrongOnWindows = await submission(bob, minute(2), {
      'linux-intel': 'ACCEPTED',
      'windows-amd': 'WRONG_ANSWER',
    });
    ids.queued = await submission(bob, minute(3));
    ids.other = await submission(ada, minute(4), undefined, 'other');
  });

  const list = async (query: Record<string, string>) => {
    const { filters, errors } = parseOrganizerFilters(query);
    expect(errors).toEqual([]);
    const page = await listSubmissionsForOrganizer(t.db, { filters: { ...filters } });
    return page.rows.map((r) => r.id);
  };

  it('filters by challenge, verdict, target, contestant, time and status', async () => {
    const wc = { challenge: 'wordcount' };
    expect(await list(wc)).toEqual([ids.queued, ids.wrongOnWindows, ids.accepted]);
    expect(await list({ ...wc, verdict: 'ACCEPTED' })).toEqual([ids.accepted]);
    // With a target the verdict is that target's: both were accepted on linux-intel.
    expect(await list({ ...wc, verdict: 'ACCEPTED', target: 'linux-intel' })).toEqual([
      ids.wrongOnWindows,
      ids.accepted,
    ]);
    expect(await list({ ...wc, verdict: 'WRONG_ANSWER', target: 'windows-amd' })).toEqual([
      ids.wrongOnWindows,
    ]);
    expect(await list({ ...wc, contestant: 'bob b' })).toEqual([ids.queued, ids.wrongOnWindows]);
    expect(await list({ ...wc, contestant: 'ADA-' })).toEqual([ids.accepted]);
    expect(await list({ ...wc, status: 'QUEUED' })).toEqual([ids.queued]);
    expect(await list({ ...wc, from: '2026-11-20T12:02', to: '2026-11-20T12:03' })).toEqual([
      ids.wrongOnWindows,
    ]);
    // A date-only "to" includes that whole day.
    expect(await list({ to: '2026-11-20' })).toHaveLength(4);
    expect(await list({ to: '2026-11-19' })).toEqual([]);
    expect(await list({ challenge: 'other' })).toEqual([ids.other]);
  });

  it('names and drops a bad filter instead of failing', () => {
    const parsed = parseOrganizerFilters({
      verdict: 'FAST',
      target: 'mac-arm',
      from: 'yesterday',
      contestant: 'x'.repeat(101),
      status: 'DONE',
    });
    expect(parsed.errors.map((e) => e.split(':')[0])).toEqual([
      'verdict',
      'target',
      'contestant',
      'from',
    ]);
    expect(parsed.filters).toEqual({ status: 'DONE' });
  });

  it('finds disqualified ones', async () => {
    await disqualifySubmission(t.db, {
      actorId: organizerId,
      submissionId: ids.wrongOnWindows!,
      reason: 'test',
    });
    expect(await list({ verdict: 'DISQUALIFIED' })).toEqual([ids.wrongOnWindows]);
    await reinstateSubmission(t.db, {
      actorId: organizerId,
      submissionId: ids.wrongOnWindows!,
      reason: 'test over',
    });
    expect(await list({ verdict: 'DISQUALIFIED' })).toEqual([]);
  });
});

describe('keyset pages over 20,000 submissions', () => {
  it('visits every row once, and a deep page is as fast as the first', async () => {
    await registerChallenge(t.db, { slug: 'bulk' });
    const challenge = await t.db.challenge.findUniqueOrThrow({
      where: { slug: 'bulk' },
      select: { id: true, versions: { select: { id: true } } },
    });
    const versionId = challenge.versions[0]!.id;
    const N = 20_000;
    const base = new Date(Date.UTC(2026, 0, 1));
    const insertStarted = performance.now();
    // In SQL: 20,000 rows through the client would take a minute on a busy machine. Pairs of equal
    // times, so the cursor must order ties by id; every third accepted.
    await t.db.$executeRaw`
      INSERT INTO "Submission" (id, "userId", "challengeId", "challengeVersionId", "patchText",
        "patchSha256", "patchBytes", "createdAt", "updatedAt", status, verdict)
      SELECT 'bulk' || lpad(i::text, 6, '0'), CASE WHEN i % 2 = 0 THEN ${ada} ELSE ${bob} END,
        ${challenge.id}, ${versionId}, 'x', 'x', 1, ${base}::timestamp + (i / 2) * interval '1 second',
        now(), 'DONE'::"SubmissionStatus",
        (CASE WHEN i % 3 = 0 THEN 'ACCEPTED' ELSE 'WRONG_ANSWER' END)::"Verdict"
      FROM generate_series(0, ${N - 1}::int) AS i`;
    await t.db.$executeRaw`
      INSERT INTO "Judging" (id, "submissionId", "targetId", status, verdict, "updatedAt")
      SELECT s.id || '-' || tg.name, s.id, tg.id, 'DONE'::"JudgingStatus", s.verdict, now()
      FROM "Submission" s CROSS JOIN "Target" tg
      WHERE s."challengeId" = ${challenge.id} AND tg."challengeVersionId" = ${versionId}`;
    await t.db.$executeRawUnsafe('ANALYZE');
    console.log(`inserted in ${(performance.now() - insertStarted).toFixed(0)} ms`);

    const filters = { challengeSlug: 'bulk' };
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let firstMs = 0;
    let deepMs = 0;
    let previous: { t: number; id: string } | null = null;
    do {
      const started = performance.now();
      const page = await listSubmissionsForOrganizer(t.db, {
        filters,
        ...(cursor ? { cursor } : {}),
        limit: 200,
      });
      const ms = performance.now() - started;
      if (pages === 0) firstMs = ms;
      if (pages === 90) deepMs = ms;
      for (const row of page.rows) {
        expect(seen.has(row.id)).toBe(false);
        seen.add(row.id);
        const key = { t: row.createdAt.getTime(), id: row.id };
        if (previous)
          expect(key.t < previous.t || (key.t === previous.t && key.id < previous.id)).toBe(true);
        previous = key;
      }
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(seen.size).toBe(N);
    expect(pages).toBe(N / 200);

    const timed = async (f: Parameters<typeof listSubmissionsForOrganizer>[1]) => {
      const started = performance.now();
      await listSubmissionsForOrganizer(t.db, f);
      return performance.now() - started;
    };
    const filteredMs = await timed({
      filters: {
        challengeSlug: 'other',
        target: 'windows-amd',
        verdict: 'ACCEPTED',
        contestant: 'bob',
      },
    });
    console.log(
      `organizer list, 20,000 rows: first page ${firstMs.toFixed(1)} ms, page 91 ${deepMs.toFixed(1)} ms, filtered ${filteredMs.toFixed(1)} ms`,
    );
    // Generous bounds for two shared cores; an offset or a full count would grow with the pages.
    expect(deepMs).toBeLessThan(Math.max(500, firstMs * 5));
    expect(filteredMs).toBeLessThan(1000);
  });
});

describe('contest settings', () => {
  it('are validated again by the data function', async () => {
    const valid = {
      deadline: null,
      submissionsPerHour: null,
      precision: null,
      benchmarkBytes: null,
    };
    for (const bad of [
      { precision: 0 },
      { precision: 0.9 },
      { benchmarkBytes: 10 },
      { submissionsPerHour: 0 },
      { submissionsPerHour: 1.5 },
      { benchmarkSeed: 'short' },
    ])
      await expect(
        updateContestSettings(t.db, {
          actorId: organizerId,
          slug: 'wordcount',
          settings: { ...valid, ...bad },
        }),
        JSON.stringify(bad),
      ).rejects.toBeInstanceOf(ZodError);
    await expect(
      updateContestSettings(t.db, { actorId: organizerId, slug: 'nope', settings: valid }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('take effect in getContest and in the judging jobs, and the audit row hides the seed', async () => {
    const deadline = new Date('2030-01-02T03:04:00Z');
    const { changed } = await updateContestSettings(t.db, {
      actorId: organizerId,
      slug: 'wordcount',
      settings: {
        deadline,
        submissionsPerHour: 7,
        precision: 0.02,
        benchmarkBytes: 4 << 20,
        benchmarkSeed: 'the-secret-seed',
      },
      benchmarkScores: 'rejudge',
      reason: 'tighter precision',
    });
    expect(changed.sort()).toEqual(
      ['benchmarkBytes', 'benchmarkSeed', 'deadline', 'precision', 'submissionsPerHour'].sort(),
    );
    const contest = await getContest(t.db, 'wordcount');
    expect(contest.settings).toEqual({
      deadline,
      submissionsPerHour: 7,
      precision: 0.02,
      benchmarkBytes: 4 << 20,
      benchmarkSeedSet: true,
    });
    expect(await getChallengeSettings(t.db, 'wordcount')).toEqual({
      deadline,
      submissionsPerHour: 7,
      precision: 0.02,
      benchmarkBytes: 4 << 20,
      benchmarkSeedSet: true,
      judgeAllTargets: false,
      supersedeQueued: false,
      // The manifest's default: cachegrind in every profile until the organizer turns it off.
      cachegrind: true,
    });

    // New submissions and re-enqueued judgings carry the settings to the runners.
    const created = await createSubmission(t.db, {
      userId: ada,
      challengeSlug: 'wordcount',
      patchText: 'p',
    });
    const expected = { precision: 0.02, benchmarkBytes: 4 << 20, benchmarkSeed: 'the-secret-seed' };
    expect(created.settings).toEqual(expected);
    const job = await getJudgingJob(t.db, created.judgings[0]!.judgingId);
    expect(judgingJobSchema.parse(job).settings).toEqual(expected);
    // A challenge without settings gives jobs without them, as before settings existed.
    const plain = await createSubmission(t.db, {
      userId: ada,
      challengeSlug: 'other',
      patchText: 'p',
    });
    const plainJob = await getJudgingJob(t.db, plain.judgings[0]!.judgingId);
    expect(plainJob?.settings).toBeUndefined();

    const audit = (await listAuditLog(t.db)).rows.find((r) => r.action === 'challenge.settings');
    expect(audit?.actor?.name).toBe('organizer');
    expect(audit?.reason).toBe('tighter precision');
    expect(audit?.details).toContain('precision: not set → 0.02');
    expect(audit?.details).not.toContain('the-secret-seed');

    // Saving the same values changes nothing and writes no audit row; an omitted seed is kept.
    const before = (await listAuditLog(t.db)).rows.length;
    const again = await updateContestSettings(t.db, {
      actorId: organizerId,
      slug: 'wordcount',
      settings: { deadline, submissionsPerHour: 7, precision: 0.02, benchmarkBytes: 4 << 20 },
    });
    expect(again.changed).toEqual([]);
    expect((await listAuditLog(t.db)).rows.length).toBe(before);

    // Cleared: back to the manifest.
    await updateContestSettings(t.db, {
      actorId: organizerId,
      slug: 'wordcount',
      settings: {
        deadline: null,
        submissionsPerHour: null,
        precision: null,
        benchmarkBytes: null,
        benchmarkSeed: null,
      },
      benchmarkScores: 'rejudge',
    });
    const cleared = await getContest(t.db, 'wordcount');
    expect(cleared.settings.precision).toBe(cleared.manifest.runPolicy.precision);
    expect(cleared.settings.benchmarkSeedSet).toBe(false);

    // Judging every target after a contestant fault: off by default, audited when turned on.
    expect((await getChallengeSettings(t.db, 'wordcount'))?.judgeAllTargets).toBe(false);
    const all = await updateContestSettings(t.db, {
      actorId: organizerId,
      slug: 'wordcount',
      settings: {
        deadline: null,
        submissionsPerHour: null,
        precision: null,
        benchmarkBytes: null,
        judgeAllTargets: true,
      },
    });
    expect(all.changed).toEqual(['judgeAllTargets']);
    expect((await getChallengeSettings(t.db, 'wordcount'))?.judgeAllTargets).toBe(true);
    await updateContestSettings(t.db, {
      actorId: organizerId,
      slug: 'wordcount',
      settings: {
        deadline: null,
        submissionsPerHour: null,
        precision: null,
        benchmarkBytes: null,
        judgeAllTargets: false,
      },
    });
  });

  it('form text is parsed with units and named errors', () => {
    const form = {
      slug: 'wordcount',
      deadline: '2030-05-06T07:08',
      submissionsPerHour: '12',
      precision: '0.01',
      benchmarkSize: '256MiB',
      benchmarkSeed: '',
      clearSeed: false,
      reason: '',
    };
    expect(settingsFormSchema.parse(form)).toMatchObject({
      deadline: new Date('2030-05-06T07:08:00Z'),
      submissionsPerHour: 12,
      precision: 0.01,
      benchmarkSize: 256 * 1024 * 1024,
    });
    const bad = settingsFormSchema.safeParse({
      ...form,
      deadline: 'tomorrow',
      precision: '1%',
      benchmarkSize: '12 parsecs',
      benchmarkSeed: 'abc',
    });
    expect(bad.success).toBe(false);
    expect(new Set(bad.error!.issues.map((i) => i.path[0]))).toEqual(
      new Set(['deadline', 'precision', 'benchmarkSize', 'benchmarkSeed']),
    );
  });
});

describe('closing and publishing', () => {
  it('close and reopen, publish and hide, each audit-logged', async () => {
    expect((await getContest(t.db, 'other')).open).toBe(true);
    const closedAt = await closeContest(t.db, {
      actorId: organizerId,
      slug: 'other',
      closed: true,
      reason: 'contest over',
    });
    expect(closedAt).toBeInstanceOf(Date);
    const closed = await getContest(t.db, 'other');
    expect(closed.open).toBe(false);
    expect(closed.closedReason).toMatch(/closed/);
    // Closing again keeps the first time and writes nothing.
    expect(
      await closeContest(t.db, { actorId: organizerId, slug: 'other', closed: true, reason: 'x' }),
    ).toEqual(closedAt);

    const at = await publishSolutions(t.db, {
      actorId: organizerId,
      slug: 'other',
      published: true,
      reason: 'results are out',
    });
    const published = await getContest(t.db, 'other');
    expect(published.solutionsPublishedAt).toEqual(at);
    expect(
      canViewPatch(null, { userId: ada, solutionsPublishedAt: published.solutionsPublishedAt }),
    ).toBe(true);

    await publishSolutions(t.db, {
      actorId: organizerId,
      slug: 'other',
      published: false,
      reason: 'too early',
    });
    await closeContest(t.db, {
      actorId: organizerId,
      slug: 'other',
      closed: false,
      reason: 'extended',
    });
    const reopened = await getContest(t.db, 'other');
    expect(reopened.open).toBe(true);
    expect(reopened.solutionsPublishedAt).toBeNull();

    const rows = (await listAuditLog(t.db)).rows.filter((r) => r.subjectId === 'other');
    expect(rows.map((r) => [r.action, r.reason])).toEqual([
      ['challenge.reopen', 'extended'],
      ['challenge.hide-solutions', 'too early'],
      ['challenge.publish-solutions', 'results are out'],
      ['challenge.close', 'contest over'],
    ]);
    await expect(
      closeContest(t.db, { actorId: organizerId, slug: 'nope', closed: true, reason: 'x' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('disqualify and reinstate', () => {
  it('move the leaderboard row and write audit rows', async () => {
    const carol = await makeUser(t.db, 'carol');
    const best = await submission(
      carol,
      minute(30),
      { 'linux-intel': 'ACCEPTED', 'windows-amd': 'ACCEPTED' },
      'wordcount',
      3,
    );
    const second = await submission(
      carol,
      minute(31),
      { 'linux-intel': 'ACCEPTED', 'windows-amd': 'ACCEPTED' },
      'wordcount',
      2,
    );
    const entry = () =>
      t.db.leaderboardEntry.findFirst({ where: { userId: carol }, select: { submissionId: true } });
    expect((await entry())?.submissionId).toBe(best);
    await disqualifySubmission(t.db, {
      actorId: organizerId,
      submissionId: best,
      reason: 'reads the input at compile time',
    });
    expect((await entry())?.submissionId).toBe(second);
    await reinstateSubmission(t.db, {
      actorId: organizerId,
      submissionId: best,
      reason: 'false alarm',
    });
    expect((await entry())?.submissionId).toBe(best);
    const rows = (await listAuditLog(t.db, { subjectId: best })).rows;
    expect(rows.map((r) => [r.action, r.reason, r.actor?.name])).toEqual([
      ['submission.reinstate', 'false alarm', 'organizer'],
      ['submission.disqualify', 'reads the input at compile time', 'organizer'],
    ]);
  });
});

describe('audit log pages', () => {
  it('visit every row once, newest first', async () => {
    const all = (await listAuditLog(t.db, { limit: 200 })).rows.map((r) => r.id);
    expect(all.length).toBeGreaterThan(5);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listAuditLog(t.db, { limit: 3, ...(cursor ? { cursor } : {}) });
      paged.push(...page.rows.map((r) => r.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(paged).toEqual(all);
    // A cursor this module did not make starts over instead of failing.
    expect((await listAuditLog(t.db, { cursor: 'not-a-cursor', limit: 1 })).rows[0]?.id).toBe(
      all[0],
    );
  });
});

describe('console actions', () => {
  let target: string;
  beforeAll(async () => {
    target = await submission(ada, minute(40));
  });
  beforeEach(() => {
    session.user = null;
  });

  it('refuse a contestant and a visitor, changing nothing', async () => {
    const { disqualifyAction, closeContestAction } = await import('../../app/organizer/actions');
    session.user = {
      id: ada,
      name: 'ada',
      email: 'ada@example.test',
      role: 'CONTESTANT',
      needsTwoFactor: false,
      twoFactorEnabled: false,
    };
    expect(await disqualifyAction({ submissionId: target, reason: 'mine now' })).toEqual({
      ok: false,
      error: 'Only organizers may do this.',
    });
    expect(
      await closeContestAction({ slug: 'wordcount', closed: true, reason: 'mine now' }),
    ).toMatchObject({ ok: false });
    session.user = null;
    expect(await disqualifyAction({ submissionId: target, reason: 'x' })).toMatchObject({
      ok: false,
      error: 'Sign in first.',
    });
    const row = await t.db.submission.findUniqueOrThrow({ where: { id: target } });
    expect(row.disqualified).toBe(false);
    expect((await getContest(t.db, 'wordcount')).closedAt).toBeNull();
    expect((await listAuditLog(t.db, { subjectId: target })).rows).toEqual([]);
  });

  it('let an organizer act, with the reason required and bounded', async () => {
    const { disqualifyAction } = await import('../../app/organizer/actions');
    session.user = {
      id: organizerId,
      name: 'organizer',
      email: 'o@example.test',
      role: 'ORGANIZER',
      needsTwoFactor: false,
      twoFactorEnabled: false,
    };
    const missing = await disqualifyAction({ submissionId: target, reason: '  ' });
    expect(missing).toMatchObject({
      ok: false,
      fieldErrors: { reason: expect.stringMatching(/reason/i) },
    });
    const long = await disqualifyAction({ submissionId: target, reason: 'x'.repeat(501) });
    expect(long).toMatchObject({ ok: false, fieldErrors: { reason: 'At most 500 characters' } });
    const unknown = await disqualifyAction({ submissionId: 'nope', reason: 'gone' });
    expect(unknown).toMatchObject({ ok: false, error: 'No submission nope' });
    expect(await disqualifyAction({ submissionId: target, reason: 'copied' })).toMatchObject({
      ok: true,
    });
    const row = await t.db.submission.findUniqueOrThrow({ where: { id: target } });
    expect([row.disqualified, row.disqualifiedReason]).toEqual([true, 'copied']);
    expect((await listAuditLog(t.db, { subjectId: target })).rows[0]).toMatchObject({
      action: 'submission.disqualify',
      reason: 'copied',
      actor: { name: 'organizer' },
    });
  });
});
