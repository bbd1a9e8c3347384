// The final evaluation and "rejudge N times" on the platform side, against the real PostgreSQL and
// Redis of this machine: the selection rules, the timeline (refused before the deadline, started
// after the close), the flows enqueued (real BullMQ, job data parsed with the contract), the real
// scorer recording live rounds and each part's result and ranking the finalists with lib/core/ranking,
// the reconciler re-queueing a lost part from its recorded rounds, and repeats recorded beside the
// submission. The runner is a FAKE (tests/helpers/final-fixtures.ts: a worker that returns
// contract-valid rounds and results); the real session runner is tested with runner/final.
import { REJUDGE_PRIORITY } from '../../lib/server/submit/rejudge';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FINAL_SESSION_JOB_NAME,
  FINAL_SESSION_SCORE_JOB_NAME,
  SCORE_QUEUE,
  finalSessionJobId,
  finalSessionJobSchema,
  finalSessionScoreJobId,
  judgingJobSchema,
  repeatJobId,
  type TargetId,
} from '../../contracts';
import { challengeSecret, env } from '../../lib/core/config/env';
import type { Db } from '../../lib/server/db/client';
import { clearFinalSelection } from '../../lib/server/db/final/clear-final-selection';
import { NotFoundError, RefusedError } from '../../lib/server/db/errors';
import { getFinalEvaluation } from '../../lib/server/db/final/get-final-evaluation';
import { listFinalists } from '../../lib/server/db/final/list-finalists';
import { listRepeatJudgings } from '../../lib/server/db/judgings/list-repeat-judgings';
import { recordFinalSessionProgress } from '../../lib/server/db/final/record-final-session-progress';
import { selectFinalSubmission } from '../../lib/server/db/final/select-final-submission';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import {
  cancelFinalEvaluation,
  publishFinalResults,
  startFinalEvaluation,
} from '../../lib/server/submit/final-evaluation';
import { requestRepeatJudgings } from '../../lib/server/submit/repeat-judgings';
import { reconcile } from '../../scorer/reconcile';
import { startScorer, type Scorer } from '../../scorer/scorer';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { leaderboardEntries, makeUser, registerChallenge } from '../../dev/db-fixtures';
import {
  acceptedSubmission,
  fakeFinalRunner,
  fakeRound,
  finalist,
  finishedContest,
} from '../helpers/final-fixtures';
import { deleteKeys, testRedisUrl } from '../helpers/queue';

let database: TestDatabase;
let db: Db;
let redis: Redis;
let organizer: string;
const closers: (() => Promise<unknown>)[] = [];
const prefixes: string[] = [];
let n = 0;

/** A fresh key prefix and queue set per test: one test's runners never see another's jobs. */
function testQueues(): QueueSet {
  const prefix = `pjtest-final-${Date.now().toString(36)}-${++n}`;
  prefixes.push(prefix);
  const queues = createQueueSet({
    connection: redis,
    prefix,
    policies: { judge: { attempts: 2, backoffMs: 100 }, score: { attempts: 3, backoffMs: 200 } },
  });
  closers.push(() => queues.close());
  return queues;
}

function connection(): Redis {
  const r = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  closers.push(() => r.quit());
  return r;
}

async function scorer(queues: QueueSet): Promise<Scorer> {
  const s = startScorer({
    db,
    queues,
    connect: () => new Redis(testRedisUrl(), { maxRetriesPerRequest: null }),
    reconcileEveryMs: null,
    trackClaims: true,
  });
  closers.push(() => s.close());
  await s.ready();
  return s;
}

function runners(queues: QueueSet, options: Parameters<typeof fakeFinalRunner>[3] = {}) {
  for (const target of ['linux-intel', 'windows-amd'] as TargetId[]) {
    const w = fakeFinalRunner(target, connection(), queues.prefix, options);
    closers.push(() => w.close());
  }
}

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  ms = 30_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const evaluationOf = (id: string) =>
  db.finalEvaluation.findUniqueOrThrow({
    where: { id },
    select: {
      status: true,
      message: true,
      ranking: true,
      sessions: { select: { status: true, roundsDone: true, rounds: true, results: true } },
      entrants: { select: { userId: true, place: true, score: true, excludedReason: true } },
    },
  });

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  redis = new Redis(env().REDIS_URL, { maxRetriesPerRequest: null });
  organizer = await makeUser(db, 'organizer');
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

afterAll(async () => {
  for (const p of prefixes) await deleteKeys(redis, `${p}:*`);
  await redis?.quit();
  await database?.drop();
});

describe('the final selection', () => {
  it('defaults to the best provisional, takes an accepted own submission, refuses the rest', async () => {
    const slug = 'final-select';
    const { version: v } = await registerChallenge(db, { slug });
    const ada = await makeUser(db, 'ada');
    const bob = await makeUser(db, 'bob');
    const adaBest = await acceptedSubmission(db, {
      userId: ada,
      slug,
      version: v,
      speedup: 3,
      patch: 'a1',
    });
    const adaOther = await acceptedSubmission(db, {
      userId: ada,
      slug,
      version: v,
      speedup: 2,
      patch: 'a2',
    });
    const bobs = await acceptedSubmission(db, {
      userId: bob,
      slug,
      version: v,
      speedup: 1.5,
      patch: 'b1',
    });

    expect(
      (await listFinalists(db, slug)).map((f) => [
        f.userName,
        f.submissionId,
        f.selectedExplicitly,
      ]),
    ).toEqual([
      ['ada', adaBest, false],
      ['bob', bobs, false],
    ]);
    await selectFinalSubmission(db, { userId: ada, submissionId: adaOther });
    const ada1 = (await listFinalists(db, slug)).find((f) => f.userId === ada);
    expect(ada1).toMatchObject({
      submissionId: adaOther,
      score: 4,
      selectedExplicitly: true,
      bestSubmissionId: adaBest,
      bestScore: 6,
    });

    // Another's submission is never confirmed to exist.
    await expect(
      selectFinalSubmission(db, { userId: ada, submissionId: bobs }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await db.submission.update({ where: { id: bobs }, data: { disqualified: true } });
    await expect(
      selectFinalSubmission(db, { userId: bob, submissionId: bobs }),
    ).rejects.toMatchObject({ code: 'refused', rule: 'disqualified' });
    const rejected = await acceptedSubmission(db, {
      userId: bob,
      slug,
      version: v,
      speedup: 1.1,
      patch: 'b2',
    });
    await db.submission.update({ where: { id: rejected }, data: { verdict: 'WRONG_ANSWER' } });
    await expect(
      selectFinalSubmission(db, { userId: bob, submissionId: rejected }),
    ).rejects.toMatchObject({ code: 'refused', rule: 'not-accepted' });

    await clearFinalSelection(db, { userId: ada, challengeSlug: slug });
    expect((await listFinalists(db, slug)).find((f) => f.userId === ada)?.submissionId).toBe(
      adaBest,
    );

    // After the deadline the selection is closed, whichever way.
    await db.challenge.update({ where: { slug }, data: { deadline: new Date(Date.now() - 1000) } });
    const late = selectFinalSubmission(db, { userId: ada, submissionId: adaOther });
    await expect(late).rejects.toBeInstanceOf(RefusedError);
    await expect(late).rejects.toThrow(/deadline has passed/);
    await expect(
      clearFinalSelection(db, { userId: ada, challengeSlug: slug }),
    ).rejects.toMatchObject({ code: 'refused', rule: 'selection-closed' });
  });
});

describe('starting the final evaluation', () => {
  it('is refused before the deadline, accepted once the contest is closed, and enqueues a flow per session', async () => {
    const slug = 'final-start';
    const { version } = await registerChallenge(db, { slug });
    await db.challenge.update({
      where: { slug },
      data: { deadline: new Date(Date.now() + 3600_000) },
    });
    const queues = testQueues();
    const a = await finalist(db, { name: 'quick', slug, version, speedup: 2, patch: 'speed=2' });
    await finalist(db, { name: 'steady', slug, version, speedup: 1.2, patch: 'speed=1.2' });

    const start = () =>
      startFinalEvaluation({ db, queues, actorId: organizer, challengeSlug: slug, rounds: 6 });
    await expect(start()).rejects.toMatchObject({ code: 'refused', rule: 'before-deadline' });
    await expect(start()).rejects.toThrow(/after the deadline/);
    expect(await db.finalEvaluation.count({ where: { challenge: { slug } } })).toBe(0);

    await db.challenge.update({ where: { slug }, data: { closedAt: new Date() } });
    const started = await start();
    expect(started).toMatchObject({ finalists: 2, sessions: 2, queuedParts: 2 });
    // The selection is closed once it has started.
    await expect(
      selectFinalSubmission(db, { userId: a.userId, submissionId: a.submissionId }),
    ).rejects.toMatchObject({ code: 'refused', rule: 'selection-closed' });
    // One evaluation at a time.
    await expect(start()).rejects.toMatchObject({ code: 'refused', rule: 'evaluation-running' });

    const row = await db.finalEvaluation.findUniqueOrThrow({
      where: { id: started.evaluationId },
      select: {
        seed: true,
        keptProvisionalSeed: true,
        sessions: { select: { id: true, target: { select: { name: true } } } },
      },
    });
    expect(row.keptProvisionalSeed).toBe(false);
    expect(row.seed).toMatch(/^[0-9a-f]{64}$/);
    for (const s of row.sessions) {
      const target = s.target.name as TargetId;
      const child = await queues.judgeQueue(target).getJob(finalSessionJobId(s.id, 0));
      expect(child?.name).toBe(FINAL_SESSION_JOB_NAME);
      const data = finalSessionJobSchema.parse(child?.data);
      expect(data).toMatchObject({
        evaluationId: started.evaluationId,
        sessionId: s.id,
        part: 0,
        target,
        rounds: [0, 1, 2, 3, 4, 5],
        done: [],
      });
      expect(data.benchmark.seed).toBe(row.seed);
      expect(data.entrants.map((e) => e.patchText).sort()).toEqual(['speed=1.2', 'speed=2']);
      const parent = await queues.scoreQueue().getJob(finalSessionScoreJobId(s.id, 0));
      expect(parent?.name).toBe(FINAL_SESSION_SCORE_JOB_NAME);
      expect(await parent?.getState()).toBe('waiting-children');
    }
    const audit = await db.auditLog.findFirst({
      where: { action: 'final.start', subjectId: started.evaluationId },
    });
    expect(audit?.actorId).toBe(organizer);

    await cancelFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      evaluationId: started.evaluationId,
      reason: 'test over',
    });
    expect((await evaluationOf(started.evaluationId)).status).toBe('CANCELLED');
    expect(
      await queues.scoreQueue().getJob(finalSessionScoreJobId(row.sessions[0]!.id, 0)),
    ).toBeUndefined();
  });

  it('splits the rounds across the live runners of a target when spread across hosts', async () => {
    const slug = 'final-spread';
    const version = await finishedContest(db, slug);
    await finalist(db, { name: 'solo', slug, version, speedup: 2, patch: 'speed=2' });
    const queues = testQueues();
    const started = await startFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      challengeSlug: slug,
      rounds: 6,
      spreadAcrossHosts: true,
      liveRunners: async (target) => (target === 'linux-intel' ? 2 : 0),
    });
    const sessions = await db.finalSession.findMany({
      where: { evaluationId: started.evaluationId },
      select: { id: true, parts: true, target: { select: { name: true } } },
    });
    const linux = sessions.find((s) => s.target.name === 'linux-intel')!;
    expect(linux.parts).toBe(2);
    expect(sessions.find((s) => s.target.name === 'windows-amd')?.parts).toBe(1);
    const rounds = await Promise.all(
      [0, 1].map(
        async (p) =>
          finalSessionJobSchema.parse(
            (await queues.judgeQueue('linux-intel').getJob(finalSessionJobId(linux.id, p)))?.data,
          ).rounds,
      ),
    );
    expect(rounds).toEqual([
      [0, 2, 4],
      [1, 3, 5],
    ]);
    await cancelFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      evaluationId: started.evaluationId,
      reason: 'done looking',
    });
  });
  it('keeps the provisional seed only when asked, and only when the platform knows it', async () => {
    const slug = 'final-seed';
    const version = await finishedContest(db, slug);
    await finalist(db, { name: 'seedy', slug, version, speedup: 2, patch: 'speed=2' });
    const queues = testQueues();
    const keep = () =>
      startFinalEvaluation({
        db,
        queues,
        actorId: organizer,
        challengeSlug: slug,
        rounds: 6,
        keepProvisionalSeed: true,
      });
    if (challengeSecret('PERFJUDGE_WORDCOUNT_SEED') === undefined)
      await expect(keep()).rejects.toMatchObject({ code: 'refused', rule: 'no-provisional-seed' });
    await db.challenge.update({ where: { slug }, data: { benchmarkSeed: 'organizer-seed-0123' } });
    const started = await keep();
    const row = await db.finalEvaluation.findUniqueOrThrow({
      where: { id: started.evaluationId },
      select: { seed: true, keptProvisionalSeed: true },
    });
    expect(row).toEqual({ seed: 'organizer-seed-0123', keptProvisionalSeed: true });
    await cancelFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      evaluationId: started.evaluationId,
      reason: 'seen',
    });
  });
});

describe('the scorer and the final sessions', () => {
  it('records live rounds, each part’s result, and ranks the finalists once every session is done', async () => {
    const slug = 'final-run';
    const version = await finishedContest(db, slug);
    const fast = await finalist(db, {
      name: 'fast',
      slug,
      version,
      speedup: 1.5,
      patch: 'speed=2.0',
    });
    const slow = await finalist(db, {
      name: 'slow',
      slug,
      version,
      speedup: 1.8,
      patch: 'speed=1.2',
    });
    const broken = await finalist(db, {
      name: 'broken',
      slug,
      version,
      speedup: 1.1,
      patch: 'broken',
    });
    const queues = testQueues();
    await scorer(queues);
    // Hold the linux session after its second round, to see the checkpoint recorded live.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    for (const target of ['linux-intel', 'windows-amd'] as TargetId[]) {
      const w = fakeFinalRunner(target, connection(), queues.prefix, {
        afterRound: (r) => (target === 'linux-intel' && r === 1 ? held : undefined),
        implausibleFrom: 2,
      });
      closers.push(() => w.close());
    }
    const started = await startFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      challengeSlug: slug,
      rounds: 8,
    });

    const live = await until('two linux rounds recorded', async () => {
      const s = await db.finalSession.findFirst({
        where: { evaluationId: started.evaluationId, target: { name: 'linux-intel' } },
        select: { status: true, roundsDone: true, rounds: true },
      });
      return s && s.roundsDone >= 2 ? s : null;
    });
    expect(live.status).toBe('JUDGING');
    expect((live.rounds as { round: number }[]).map((r) => r.round)).toEqual([0, 1]);
    const running = await getFinalEvaluation(db, slug, { includeUnpublished: false });
    expect(running).toMatchObject({ status: 'RUNNING', entrants: [] });
    release();

    const done = await until('the evaluation ranked', async () => {
      const e = await evaluationOf(started.evaluationId);
      return e.status !== 'RUNNING' ? e : null;
    });
    expect(done.message).toBeNull();
    expect(done.status).toBe('DONE');
    expect(done.sessions.every((s) => s.status === 'DONE' && s.roundsDone === 8)).toBe(true);
    const byUser = new Map(done.entrants.map((e) => [e.userId, e]));
    expect(byUser.get(fast.userId)?.place).toBe(1);
    expect(byUser.get(slow.userId)?.place).toBe(2);
    expect(byUser.get(fast.userId)?.score).toBeCloseTo(4, 1); // SUM of 2× on two targets
    expect(byUser.get(broken.userId)).toMatchObject({ place: null, score: null });
    expect(byUser.get(broken.userId)?.excludedReason).toMatch(/did not build/);

    // Not public until published; organizers see it at once.
    expect((await getFinalEvaluation(db, slug, { includeUnpublished: false }))?.entrants).toEqual(
      [],
    );
    const review = await getFinalEvaluation(db, slug, { includeUnpublished: true });
    expect(review?.entrants.map((e) => [e.userName, e.place])).toEqual([
      ['fast', 1],
      ['slow', 2],
      ['broken', null],
    ]);
    expect(review?.method).toMatch(/.+/);
    // Faster than the host can read the input, on both targets: flagged for the organizers only.
    expect(review?.entrants[0]?.plausibilityFlags).toHaveLength(2);
    expect(review?.entrants[0]?.plausibilityFlags[0]).toMatch(/below the 60\.0 ms/);
    expect(review?.entrants[1]?.plausibilityFlags).toEqual([]);
    expect(review?.sessions[0]?.hosts).toEqual(['fake-judge']);
    await publishFinalResults({ db, actorId: organizer, evaluationId: started.evaluationId });
    const published = await getFinalEvaluation(db, slug, { includeUnpublished: false });
    expect(published?.publishedAt).not.toBeNull();
    expect(published?.entrants[0]).toMatchObject({
      userName: 'fast',
      place: 1,
      plausibilityFlags: [],
    });
    expect(published?.sessions[0]?.hosts).toEqual([]);
  });

  it('a session spread across hosts is done once every part answered', async () => {
    const slug = 'final-spread-run';
    const version = await finishedContest(db, slug);
    await finalist(db, { name: 'spready', slug, version, speedup: 2, patch: 'speed=2' });
    await finalist(db, { name: 'plain', slug, version, speedup: 1, patch: 'speed=1' });
    const queues = testQueues();
    await scorer(queues);
    runners(queues);
    const started = await startFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      challengeSlug: slug,
      rounds: 6,
      spreadAcrossHosts: true,
      liveRunners: async (target) => (target === 'linux-intel' ? 2 : 1),
    });
    expect(started.queuedParts).toBe(3);
    const done = await until('the evaluation ranked', async () => {
      const e = await evaluationOf(started.evaluationId);
      return e.status !== 'RUNNING' ? e : null;
    });
    expect(done.status).toBe('DONE');
    const linux = await db.finalSession.findFirstOrThrow({
      where: { evaluationId: started.evaluationId, target: { name: 'linux-intel' } },
      select: { parts: true, roundsDone: true, results: true },
    });
    expect(linux).toMatchObject({ parts: 2, roundsDone: 6 });
    expect((linux.results as { part: number }[]).map((r) => r.part).sort()).toEqual([0, 1]);
  });

  it('fails the evaluation with the message when a part reports the platform’s fault', async () => {
    const slug = 'final-fail';
    const version = await finishedContest(db, slug);
    await finalist(db, { name: 'one', slug, version, speedup: 2, patch: 'speed=2' });
    const queues = testQueues();
    await scorer(queues);
    runners(queues, { judgeError: 'the host is too busy to time anything' });
    const started = await startFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      challengeSlug: slug,
      rounds: 6,
    });
    const failed = await until('the evaluation failed', async () => {
      const e = await evaluationOf(started.evaluationId);
      return e.status !== 'RUNNING' ? e : null;
    });
    expect(failed.status).toBe('FAILED');
    expect(failed.message).toMatch(/too busy/);
    await expect(
      publishFinalResults({ db, actorId: organizer, evaluationId: started.evaluationId }),
    ).rejects.toMatchObject({ code: 'refused', rule: 'not-done' });
    // A new one may start now.
    await expect(
      startFinalEvaluation({ db, queues, actorId: organizer, challengeSlug: slug, rounds: 6 }),
    ).resolves.toMatchObject({ finalists: 1 });
  });

  it('re-queues a part whose job Redis lost, continuing from the rounds the database recorded', async () => {
    const slug = 'final-reconcile';
    const version = await finishedContest(db, slug);
    await finalist(db, { name: 'uno', slug, version, speedup: 2, patch: 'speed=2' });
    const queues = testQueues();
    const started = await startFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      challengeSlug: slug,
      rounds: 6,
    });
    const session = await db.finalSession.findFirstOrThrow({
      where: { evaluationId: started.evaluationId, target: { name: 'linux-intel' } },
      select: { id: true },
    });
    const entrant = await db.finalEntrant.findFirstOrThrow({
      where: { evaluationId: started.evaluationId },
      select: { id: true },
    });
    for (const r of [0, 1, 1])
      await recordFinalSessionProgress(db, {
        sessionId: session.id,
        status: 'JUDGING',
        round: fakeRound(r, [{ entrantId: entrant.id, speed: 2 }]),
      });
    // Recorded once each, by round number.
    expect(
      (await db.finalSession.findUniqueOrThrow({ where: { id: session.id } })).roundsDone,
    ).toBe(2);

    await deleteKeys(redis, `${queues.prefix}:*`);
    const report = await reconcile(db, queues, { olderThanMs: 0 });
    expect(report.finalRequeued).toContain(finalSessionJobId(session.id, 0));
    const job = await queues.judgeQueue('linux-intel').getJob(finalSessionJobId(session.id, 0));
    const data = finalSessionJobSchema.parse(job?.data);
    expect(data.done.map((r) => r.round)).toEqual([0, 1]);
    expect(data.rounds).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await queues.queue(SCORE_QUEUE).getJobState(finalSessionScoreJobId(session.id, 0))).toBe(
      'waiting-children',
    );
    // In Redis again: a second pass adds nothing.
    expect((await reconcile(db, queues, { olderThanMs: 0 })).finalRequeued).toEqual([]);
    await cancelFinalEvaluation({
      db,
      queues,
      actorId: organizer,
      evaluationId: started.evaluationId,
      reason: 'test over',
    });
  });
});

describe('rejudge N times', () => {
  it('records each repeat in its own row and leaves the submission, its judgings and the leaderboard alone', async () => {
    const slug = 'final-repeat';
    const { version } = await registerChallenge(db, { slug });
    const { submissionId } = await finalist(db, {
      name: 'disputed',
      slug,
      version,
      speedup: 2,
      patch: 'p',
    });
    const before = await db.submission.findUniqueOrThrow({
      where: { id: submissionId },
      select: {
        status: true,
        verdict: true,
        score: true,
        judgings: { select: { id: true, speedup: true, round: true, result: true } },
      },
    });
    const board = await leaderboardEntries(db, slug);
    const queues = testQueues();
    await scorer(queues);
    await expect(
      requestRepeatJudgings({
        db,
        queues,
        actorId: organizer,
        submissionId,
        times: 1,
        reason: 'x',
      }),
    ).rejects.toMatchObject({ code: 'refused', rule: 'bad-times' });

    const series = await requestRepeatJudgings({
      db,
      queues,
      actorId: organizer,
      submissionId,
      times: 3,
      target: 'linux-intel',
      reason: 'contestant disputes the score',
    });
    expect(series).toMatchObject({ judgings: 3, queued: 3 });
    const rows = await db.judgingRepeat.findMany({
      where: { seriesId: series.seriesId },
      select: { id: true },
    });
    const job = await queues.judgeQueue('linux-intel').getJob(repeatJobId(rows[0]!.id));
    expect(judgingJobSchema.parse(job?.data).repeat).toEqual({ repeatId: rows[0]!.id });
    // Below every contestant's new submissions, as a challenge-wide rejudge.
    expect(job?.opts.priority).toBe(REJUDGE_PRIORITY);

    runners(queues, { repeatSpeedup: 2.4 });
    const repeats = await until('three repeats recorded', async () => {
      const list = await listRepeatJudgings(db, submissionId);
      return list.length === 3 && list.every((r) => r.status === 'DONE') ? list : null;
    });
    expect(repeats.map((r) => [r.target, r.index, r.verdict, r.speedup])).toEqual([
      ['linux-intel', 1, 'ACCEPTED', 2.4],
      ['linux-intel', 2, 'ACCEPTED', 2.4],
      ['linux-intel', 3, 'ACCEPTED', 2.4],
    ]);
    const after = await db.submission.findUniqueOrThrow({
      where: { id: submissionId },
      select: {
        status: true,
        verdict: true,
        score: true,
        judgings: { select: { id: true, speedup: true, round: true, result: true } },
      },
    });
    expect(after).toEqual(before);
    expect(await leaderboardEntries(db, slug)).toEqual(board);
    expect(
      await db.auditLog.count({ where: { action: 'submission.repeat', subjectId: submissionId } }),
    ).toBe(1);
  });
});
