// The submission page's and "My submissions"' data access against a real PostgreSQL schema and a
// real Redis: real recorded results (tests/fixtures/web-submission) stored by the scorer's write,
// the visibility rule (author, organizers, everyone after publication; null for anyone else),
// the live progress read from BullMQ job progress, and the shaping of logs and chart data.
import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobId,
  judgingResultSchema,
  type JudgingResult,
} from '../../contracts';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { getJudgingBuildLog } from '../../lib/server/db/judgings/get-judging-build-log';
import { getSubmissionPatch } from '../../lib/server/db/submissions/get-submission-patch';
import {
  getSubmissionView,
  type SubmissionViewer,
} from '../../lib/server/db/submissions/get-submission-view';
import {
  listMySubmissions,
  runningBest,
} from '../../lib/server/db/submissions/list-my-submissions';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { createHttpConnection } from '../../lib/server/queue/connection';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { getSubmissionStatus } from '../../lib/server/db/submissions/get-submission-status';
import {
  progressFromStatus,
  readQueueEstimates,
  readSubmissionProgress,
} from '../../lib/server/web/submission-progress';
import {
  LOG_HEAD_CHARS,
  LOG_TAIL_CHARS,
  memoryChartData,
  runsChartData,
  truncateText,
} from '../../lib/server/web/submission-result';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';
import { createTestQueues, testRedisUrl, type TestQueues } from '../helpers/queue';

/** The registered version: the manifest's, as the runners' results carry it. */
let version: number;

/** A recorded result, as a runner of the current challenge version would send it. */
function fixture(name: string): JudgingResult {
  const url = new URL(`../fixtures/web-submission/${name}.json`, import.meta.url);
  const result = judgingResultSchema.parse(JSON.parse(readFileSync(url, 'utf8')));
  return { ...result, challenge: { ...result.challenge, version } };
}

/** The recorded linux-intel result as another target's runner would have sent it. */
function onTarget(result: JudgingResult, target: 'linux-intel' | 'windows-amd'): JudgingResult {
  return {
    ...result,
    target,
    host: { ...result.host, emulated: target === 'windows-amd', devMode: true },
  };
}

let t: TestDatabase;
let q: TestQueues;
let queues: QueueSet;
let author: SubmissionViewer;
let other: SubmissionViewer;
let organizer: SubmissionViewer;

async function submit(userId: string, patchText = 'diff --git a/x b/x\n') {
  const created = await createSubmission(t.db, { userId, challengeSlug: 'wordcount', patchText });
  const by = Object.fromEntries(created.judgings.map((j) => [j.target, j]));
  return { id: created.submissionId, linux: by['linux-intel']!, windows: by['windows-amd']! };
}

async function record(
  judging: { judgingId: string; round: number },
  result: JudgingResult,
): Promise<void> {
  await recordJudgingResult(t.db, {
    ...judging,
    result: { ...result, judgingId: judging.judgingId },
  });
}

beforeAll(async () => {
  t = await createTestDatabase();
  q = await createTestQueues('web-submission');
  queues = createQueueSet({ connection: q.redis, prefix: q.prefix });
  ({ version } = await registerChallenge(t.db));
  author = { id: await makeUser(t.db, 'author'), role: 'CONTESTANT' };
  other = { id: await makeUser(t.db, 'other'), role: 'CONTESTANT' };
  const organizerId = await makeUser(t.db, 'organizer');
  await t.db.user.update({ where: { id: organizerId }, data: { role: 'ORGANIZER' } });
  organizer = { id: organizerId, role: 'ORGANIZER' };
});
afterAll(async () => {
  await queues?.close();
  await q?.cleanup();
  await t?.drop();
});

describe('getSubmissionView', () => {
  it('shows an accepted submission with its recorded results to its author', async () => {
    const s = await submit(author.id);
    const accepted = fixture('accepted-linux-intel');
    await record(s.linux, onTarget(accepted, 'linux-intel'));
    await record(s.windows, onTarget(accepted, 'windows-amd'));

    const view = await getSubmissionView(t.db, { submissionId: s.id, viewer: author });
    expect(view).toMatchObject({
      id: s.id,
      challenge: { slug: 'wordcount', version },
      author: { name: 'author' },
      isAuthor: true,
      status: 'DONE',
      verdict: 'ACCEPTED',
      disqualified: false,
      solutionsPublished: false,
    });
    const speedup = accepted.stages.measure!.estimate!.speedup;
    expect(view!.score).toBeCloseTo(2 * speedup, 9);
    expect(view!.judgings.map((j) => j.target)).toEqual(['linux-intel', 'windows-amd']);
    const [linux, windows] = view!.judgings;
    expect(linux).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED', devMode: true });
    expect(linux!.speedup).toBeCloseTo(speedup, 9);
    expect(windows).toMatchObject({ emulated: true, resultUnreadable: false });
    // The result comes back as the contract's type, counters 'unsupported' and not 0.
    const counters = linux!.result!.stages.measure!.counters;
    expect(counters.find((c) => c.name === 'cycles')).toMatchObject({
      status: 'unsupported',
      baseline: null,
    });
    expect(linux!.result!.stages.profile!.topdown).toBeNull();
    expect(linux!.result!.stages.profile!.notes.join(' ')).toMatch(/Top-Down/);
  });

  it('is null for another contestant and for a visitor until the solutions are published', async () => {
    const s = await submit(author.id, 'secret patch\n');
    await record(s.linux, onTarget(fixture('wrong-answer-linux-intel'), 'linux-intel'));

    expect(await getSubmissionView(t.db, { submissionId: s.id, viewer: other })).toBeNull();
    expect(await getSubmissionView(t.db, { submissionId: s.id, viewer: null })).toBeNull();
    expect(await getSubmissionPatch(t.db, { submissionId: s.id, viewer: other })).toBeNull();
    expect(
      await getJudgingBuildLog(t.db, { submissionId: s.id, target: 'linux-intel', viewer: other }),
    ).toBeNull();
    // An unknown id reads exactly like a forbidden one.
    expect(await getSubmissionView(t.db, { submissionId: 'nope', viewer: other })).toBeNull();

    const asOrganizer = await getSubmissionView(t.db, { submissionId: s.id, viewer: organizer });
    // Settled by the wrong answer: the other target is not judged (CANCELLED).
    expect(asOrganizer).toMatchObject({ isAuthor: false, status: 'DONE' });
    expect(asOrganizer!.judgings[0]).toMatchObject({ status: 'DONE', verdict: 'WRONG_ANSWER' });
    const wrong = asOrganizer!.judgings[0]!.result!.stages.test!.cases.find(
      (c) => c.outcome === 'wrong-answer',
    );
    expect(wrong!.diff[0]).toEqual({ line: 5, expected: 'A\t1', got: '_\t1' });
    expect(asOrganizer!.judgings[1]).toMatchObject({ status: 'CANCELLED', result: null });
    expect(
      (await getSubmissionPatch(t.db, { submissionId: s.id, viewer: organizer }))?.patchText,
    ).toBe('secret patch\n');

    await t.db.challenge.update({
      where: { slug: 'wordcount' },
      data: { solutionsPublishedAt: new Date() },
    });
    try {
      expect(await getSubmissionView(t.db, { submissionId: s.id, viewer: other })).toMatchObject({
        solutionsPublished: true,
        isAuthor: false,
      });
      expect(await getSubmissionView(t.db, { submissionId: s.id, viewer: null })).not.toBeNull();
      expect(
        (await getSubmissionPatch(t.db, { submissionId: s.id, viewer: null }))?.patchText,
      ).toBe('secret patch\n');
    } finally {
      await t.db.challenge.update({
        where: { slug: 'wordcount' },
        data: { solutionsPublishedAt: null },
      });
    }
  });

  it('reads one target’s full build log out of the stored result', async () => {
    const s = await submit(author.id);
    const build = fixture('build-error-linux-intel');
    await record(s.linux, onTarget(build, 'linux-intel'));
    const log = await getJudgingBuildLog(t.db, {
      submissionId: s.id,
      target: 'linux-intel',
      viewer: author,
    });
    expect(log?.log).toBe(build.stages.build!.solution.log);
    expect(log?.log).toMatch(/error: expected ';'/);
    const baseline = await getJudgingBuildLog(t.db, {
      submissionId: s.id,
      target: 'linux-intel',
      side: 'baseline',
      viewer: organizer,
    });
    expect(baseline?.log).toBe(build.stages.build!.baseline.log);
    // Not judged yet: no log rather than an empty one.
    expect(
      await getJudgingBuildLog(t.db, { submissionId: s.id, target: 'windows-amd', viewer: author }),
    ).toBeNull();
  });
});

describe('readSubmissionProgress', () => {
  it('merges the judging rows with the runner’s BullMQ job progress, this round only', async () => {
    const s = await submit(author.id);
    const queue = new Queue(judgeQueueName('linux-intel'), {
      connection: q.redis,
      prefix: q.prefix,
    });
    try {
      const before = await readSubmissionProgress(t.db, queues, s.id);
      expect(before!.access).toEqual({ userId: author.id, solutionsPublishedAt: null });
      expect(before!.progress).toMatchObject({ done: false, live: true, status: 'QUEUED' });
      expect(before!.progress.targets.map((x) => x.stage)).toEqual(['queued', 'queued']);

      const job = await queue.add('judge', {}, { jobId: judgingJobId(s.linux.judgingId, 0) });
      await job.updateProgress({
        judgingId: s.linux.judgingId,
        round: 0,
        stage: 'measure',
        fraction: 0.5,
        message: 'pair 2 of 4',
      });
      const during = await readSubmissionProgress(t.db, queues, s.id);
      expect(during!.progress.targets[0]).toMatchObject({
        target: 'linux-intel',
        status: 'JUDGING',
        stage: 'measure',
        stageFraction: 0.5,
        message: 'pair 2 of 4',
      });
      expect(during!.progress.targets[0]!.overall).toBeCloseTo((3 + 0.5) / 6, 9);

      // Progress that does not parse, or of another round, is not shown.
      await job.updateProgress({ stage: 'nonsense' });
      const junk = await readSubmissionProgress(t.db, queues, s.id);
      expect(junk!.progress.targets[0]!.stage).toBe('queued');

      await record(s.linux, onTarget(fixture('accepted-linux-intel'), 'linux-intel'));
      await record(s.windows, onTarget(fixture('wrong-answer-linux-intel'), 'windows-amd'));
      const after = await readSubmissionProgress(t.db, queues, s.id);
      expect(after!.progress).toMatchObject({
        done: true,
        status: 'DONE',
        verdict: 'WRONG_ANSWER',
      });
      expect(after!.progress.targets.map((x) => [x.stage, x.overall])).toEqual([
        ['done', 1],
        ['done', 1],
      ]);
      // What a browser is sent names no user.
      expect(JSON.stringify(after!.progress)).not.toContain(author.id);
    } finally {
      await queue.close();
    }
  });

  it('shows a target not judged after the submission failed on another as settled, saying why', async () => {
    const s = await submit(author.id);
    await record(s.windows, onTarget(fixture('wrong-answer-linux-intel'), 'windows-amd'));
    const read = await readSubmissionProgress(t.db, queues, s.id);
    expect(read!.progress).toMatchObject({ done: true, status: 'DONE', verdict: 'WRONG_ANSWER' });
    expect(read!.progress.targets[0]).toMatchObject({
      target: 'linux-intel',
      status: 'CANCELLED',
      verdict: null,
      stage: 'cancelled',
      message: 'not judged: the submission failed on windows-amd',
    });
  });

  it('tells a queued judging its place and an estimate from recent judgings; waiting is not judging', async () => {
    const a = await submit(author.id);
    const b = await submit(author.id);
    // Recent linux-intel judgings took 4 minutes each from taken to done.
    const done = await submit(author.id);
    await record(done.linux, onTarget(fixture('accepted-linux-intel'), 'linux-intel'));
    await t.db.$executeRaw`
      UPDATE "Judging" j SET "startedAt" = j."finishedAt" - interval '240 seconds'
      FROM "Target" tg WHERE tg.id = j."targetId" AND tg.name = 'linux-intel' AND j.status = 'DONE'`;
    // A's windows judging was taken and waits for the host lock.
    await t.db.judging.update({
      where: { id: a.windows.judgingId },
      data: { status: 'WAITING', startedAt: new Date() },
    });

    const read = async (id: string) => {
      const row = (await getSubmissionStatus(t.db, id))!;
      // A later `now` than any cached figure: the typical duration is read again.
      const estimates = await readQueueEstimates(t.db, row, Date.now() + 60_000);
      return progressFromStatus(row, new Map(), true, estimates).targets;
    };
    const [aLinux, aWindows] = await read(a.id);
    const [bLinux, bWindows] = await read(b.id);
    // B was queued after A on both targets: one more ahead of it.
    expect(bLinux!.ahead).toBe(aLinux!.ahead! + 1);
    expect(aWindows).toMatchObject({ stage: 'waiting', status: 'WAITING', ahead: null });
    expect(bWindows!.ahead).toBeGreaterThanOrEqual(1);
    // Queued with n ahead and nothing in progress on linux-intel: (n + 1) × 4 min.
    expect(bLinux!.etaMs).toBeCloseTo((bLinux!.ahead! + 1) * 240_000, -3);
    expect(aLinux!.stage).toBe('queued');
  });

  it('falls back to the database alone when Redis does not answer', async () => {
    const s = await submit(author.id);
    const deadUrl = new URL(testRedisUrl());
    deadUrl.port = '1';
    const dead = createHttpConnection({ url: deadUrl.toString(), onError: () => undefined });
    const deadQueues = createQueueSet({ connection: dead, prefix: q.prefix }, () => undefined);
    try {
      const started = Date.now();
      const read = await readSubmissionProgress(t.db, deadQueues, s.id);
      expect(read!.progress).toMatchObject({ live: false, done: false });
      expect(read!.progress.targets.map((x) => x.stage)).toEqual(['queued', 'queued']);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await deadQueues.close();
      dead.disconnect();
    }
  });
});

describe('listMySubmissions', () => {
  it('lists only my submissions, newest first, with the running best of accepted scores', async () => {
    const me = await makeUser(t.db, 'historian');
    const scores = [2, 1.5, 3, 2.5];
    const ids: string[] = [];
    for (const [i, speedup] of scores.entries()) {
      const s = await submit(me);
      await t.db.submission.update({
        where: { id: s.id },
        data: { createdAt: new Date(Date.UTC(2026, 10, 1 + i)) },
      });
      for (const j of [s.linux, s.windows])
        await record(
          j,
          makeResult({
            slug: 'wordcount',
            version,
            target: j === s.linux ? 'linux-intel' : 'windows-amd',
            speedup: speedup / 2,
          }),
        );
      ids.push(s.id);
    }
    const failed = await submit(me);
    await record(
      failed.linux,
      makeResult({ slug: 'wordcount', version, target: 'linux-intel', verdict: 'BUILD_ERROR' }),
    );
    // A disqualified best does not count as my best.
    await t.db.submission.update({ where: { id: ids[2]! }, data: { disqualified: true } });

    const mine = await listMySubmissions(t.db, { userId: me });
    expect(mine.total).toBe(5);
    expect(mine.rows.map((r) => r.id)).toEqual([failed.id, ...[...ids].reverse()]);
    // A contestant fault settles the submission at once; its other target is not judged.
    expect(mine.rows[0]).toMatchObject({ status: 'DONE', verdict: 'BUILD_ERROR', score: null });
    expect(mine.rows[0]!.targets).toMatchObject([
      { target: 'linux-intel', status: 'DONE', verdict: 'BUILD_ERROR', speedup: null },
      { target: 'windows-amd', status: 'CANCELLED', verdict: null },
    ]);
    expect(mine.rows[1]!.targets[0]).toMatchObject({ verdict: 'ACCEPTED', speedup: 1.25 });
    expect(mine.best).toHaveLength(1);
    expect(mine.best[0]!.points.map((p) => [p.at.slice(0, 10), p.score])).toEqual([
      ['2026-11-01', 2],
      ['2026-11-04', 2.5],
    ]);

    const capped = await listMySubmissions(t.db, { userId: me, limit: 2 });
    expect(capped).toMatchObject({ total: 5, limit: 2 });
    expect(capped.rows).toHaveLength(2);
    expect((await listMySubmissions(t.db, { userId: other.id })).rows).toEqual([]);
  });

  it('runningBest keeps only the improvements', () => {
    const at = (d: number) => new Date(Date.UTC(2026, 0, d));
    expect(
      runningBest([
        { id: 'a', createdAt: at(1), score: 1 },
        { id: 'b', createdAt: at(2), score: 1 },
        { id: 'c', createdAt: at(3), score: 0.5 },
        { id: 'd', createdAt: at(4), score: 1.2 },
      ]).map((p) => p.submissionId),
    ).toEqual(['a', 'd']);
  });
});

describe('shaping a result for the page', () => {
  it('cuts a 10 MB log to its head and tail, saying how much is left out', () => {
    const log = `first error here\n${'x'.repeat(10 * 1024 * 1024)}\nlast line`;
    const cut = truncateText(log);
    expect(cut.truncated).toBe(true);
    expect(cut.totalChars).toBe(log.length);
    expect(cut.omittedChars).toBe(log.length - LOG_HEAD_CHARS - LOG_TAIL_CHARS);
    expect(cut.text.length).toBeLessThan(LOG_HEAD_CHARS + LOG_TAIL_CHARS + 200);
    expect(cut.text.startsWith('first error here')).toBe(true);
    expect(cut.text.endsWith('last line')).toBe(true);
    expect(cut.text).toContain('characters omitted');
    expect(truncateText('short')).toEqual({
      text: 'short',
      truncated: false,
      totalChars: 5,
      omittedChars: 0,
    });
  });

  it('gives the charts one point per timed pair and per memory sample', () => {
    const r = fixture('accepted-linux-intel');
    const runs = runsChartData(r.stages.measure!.runs);
    expect(runs.map((p) => p.pair)).toEqual([1, 2, 3]);
    for (const p of runs) {
      expect(p.baseline).toBeGreaterThan(0);
      expect(p.solution).toBeGreaterThan(0);
    }
    const memory = memoryChartData(r.stages.profile!.memory!.solution);
    expect(memory).toHaveLength(r.stages.profile!.memory!.solution.points.length);
    expect(Math.max(...memory.map((m) => m.rssMiB))).toBeCloseTo(
      Math.max(...r.stages.profile!.memory!.solution.points.map((p) => p.rssBytes)) / 1048576,
      2,
    );
  });
});
