// The scorer's writes against the real PostgreSQL: results stored once however often they arrive,
// combined scores by the manifest's formula, verdicts of failing targets, rejudges, calibrations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JudgingResult } from '../../contracts';
import { appendAuditLog } from '../../lib/server/db/audit/append-audit-log';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { InvalidResultError } from '../../lib/server/db/errors';
import { hostFingerprintHash } from '../../contracts/host-fingerprint-hash';
import { recordHostCalibration } from '../../lib/server/db/judgings/record-host-calibration';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { requestRejudge } from '../../lib/server/db/judgings/request-rejudge';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { hostCalibration, makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

let t: TestDatabase;
let userId: string;
let organizerId: string;
/** The registered version: the manifest's, as the runners' results carry it. */
let version: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db, { slug: 'wc-sum', formula: 'sum' }));
  await registerChallenge(t.db, { slug: 'wc-geo', formula: 'geomean' });
  userId = await makeUser(t.db);
  organizerId = await makeUser(t.db, 'organizer');
});
afterAll(async () => {
  await t?.drop();
});

async function submit(slug: string) {
  const created = await createSubmission(t.db, { userId, challengeSlug: slug, patchText: 'p' });
  const byTarget = Object.fromEntries(created.judgings.map((j) => [j.target, j]));
  const linux = byTarget['linux-intel'];
  const windows = byTarget['windows-amd'];
  if (!linux || !windows) throw new Error('missing judgings');
  return { submissionId: created.submissionId, linux, windows };
}

function result(slug: string, target: 'linux-intel' | 'windows-amd', extra = {}): JudgingResult {
  return makeResult({ slug, version, target, ...extra });
}

const runCount = (judgingId: string) => t.db.run.count({ where: { judgingId } });

describe('recordJudgingResult', () => {
  it('stores a result once however often it is delivered, and sums the speedups', async () => {
    const s = await submit('wc-sum');
    const linux = result('wc-sum', 'linux-intel', { speedup: 2, pairs: 3 });
    const first = await recordJudgingResult(t.db, { ...s.linux, result: linux });
    expect(first.outcome).toBe('recorded');
    expect(first.submission).toMatchObject({ status: 'JUDGING', verdict: null, score: null });
    expect(await runCount(s.linux.judgingId)).toBe(8);

    const again = await recordJudgingResult(t.db, { ...s.linux, result: linux });
    expect(again.outcome).toBe('duplicate');
    expect(await runCount(s.linux.judgingId)).toBe(8);

    const windows = result('wc-sum', 'windows-amd', { speedup: 3 });
    const done = await recordJudgingResult(t.db, { ...s.windows, result: windows });
    expect(done.submission).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED', score: 5 });
    const dup = await recordJudgingResult(t.db, { ...s.windows, result: windows });
    expect(dup).toMatchObject({ outcome: 'duplicate', submission: { score: 5, status: 'DONE' } });
    expect(await t.db.run.count({ where: { judging: { submissionId: s.submissionId } } })).toBe(16);

    const judging = await t.db.judging.findUniqueOrThrow({ where: { id: s.windows.judgingId } });
    expect(judging).toMatchObject({
      status: 'DONE',
      verdict: 'ACCEPTED',
      speedup: 3,
      ciLow: 3 * 0.98,
      devMode: true,
      emulated: true,
    });
    expect(judging.hostFingerprintHash).toMatch(/^[0-9a-f]{64}$/);
    expect((judging.result as { verdict: string }).verdict).toBe('ACCEPTED');
    const runs = await t.db.run.findMany({
      where: { judgingId: s.linux.judgingId },
      orderBy: { seq: 'asc' },
    });
    expect(runs.map((r) => [r.side, r.kind, r.pair])).toEqual([
      ['BASELINE', 'WARMUP', null],
      ['SOLUTION', 'WARMUP', null],
      ['BASELINE', 'TIMED', 0],
      ['SOLUTION', 'TIMED', 0],
      ['BASELINE', 'TIMED', 1],
      ['SOLUTION', 'TIMED', 1],
      ['BASELINE', 'TIMED', 2],
      ['SOLUTION', 'TIMED', 2],
    ]);
    expect(runs[3]).toMatchObject({ wallMs: 50, maxRssBytes: BigInt(48 << 20), correct: true });
    expect((runs[0]?.counters as Record<string, { status: string }>).cycles?.status).toBe(
      'unsupported',
    );
  });

  it('takes the geometric mean when the manifest says so', async () => {
    const s = await submit('wc-geo');
    await recordJudgingResult(t.db, {
      ...s.linux,
      result: result('wc-geo', 'linux-intel', { speedup: 2 }),
    });
    const done = await recordJudgingResult(t.db, {
      ...s.windows,
      result: result('wc-geo', 'windows-amd', { speedup: 8 }),
    });
    expect(done.submission.score).toBeCloseTo(4, 12);
  });

  it('stores concurrent deliveries of both targets and of duplicates exactly once', async () => {
    const s = await submit('wc-sum');
    const linux = result('wc-sum', 'linux-intel', { speedup: 1.5 });
    const windows = result('wc-sum', 'windows-amd', { speedup: 2.5 });
    const outcomes = await Promise.all([
      recordJudgingResult(t.db, { ...s.linux, result: linux }),
      recordJudgingResult(t.db, { ...s.windows, result: windows }),
      recordJudgingResult(t.db, { ...s.linux, result: linux }),
      recordJudgingResult(t.db, { ...s.windows, result: windows }),
    ]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual([
      'duplicate',
      'duplicate',
      'recorded',
      'recorded',
    ]);
    expect(await runCount(s.linux.judgingId)).toBe(8);
    expect(await runCount(s.windows.judgingId)).toBe(8);
    const submission = await t.db.submission.findUniqueOrThrow({ where: { id: s.submissionId } });
    expect(submission).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED', score: 4 });
  });

  it("gives a failing target's verdict and no score; a platform failure is not the contestant's", async () => {
    const wrong = await submit('wc-sum');
    await recordJudgingResult(t.db, { ...wrong.linux, result: result('wc-sum', 'linux-intel') });
    const done = await recordJudgingResult(t.db, {
      ...wrong.windows,
      result: result('wc-sum', 'windows-amd', { verdict: 'WRONG_ANSWER' }),
    });
    expect(done.submission).toMatchObject({ status: 'DONE', verdict: 'WRONG_ANSWER', score: null });

    const broken = await submit('wc-sum');
    await recordJudgingResult(t.db, { ...broken.linux, result: result('wc-sum', 'linux-intel') });
    const failed = await recordJudgingResult(t.db, {
      ...broken.windows,
      result: result('wc-sum', 'windows-amd', { verdict: 'JUDGE_ERROR' }),
    });
    expect(failed.submission).toMatchObject({
      status: 'FAILED',
      verdict: 'JUDGE_ERROR',
      score: null,
    });
  });

  it('stores a wrong answer whose diff lines and message hold NUL bytes (shown as U+2400)', async () => {
    const s = await submit('wc-sum');
    const base = result('wc-sum', 'linux-intel', { verdict: 'WRONG_ANSWER' });
    const wrong: JudgingResult = {
      ...base,
      message: 'wrong answer in binary/nul\u0000inside',
      stages: {
        ...base.stages,
        test: {
          cases: [
            {
              group: 'binary',
              name: 'nul-inside-words',
              required: true,
              outcome: 'wrong-answer',
              wallMs: 3,
              diff: [{ line: 1, expected: 'a\u0000b\t1', got: 'a\t1' }],
              message: '',
            },
          ],
        },
      },
    };
    const recorded = await recordJudgingResult(t.db, { ...s.linux, result: wrong });
    expect(recorded.outcome).toBe('recorded');
    const row = await t.db.judging.findUniqueOrThrow({ where: { id: s.linux.judgingId } });
    expect(row.message).toBe('wrong answer in binary/nul\u2400inside');
    const stored = row.result as unknown as JudgingResult;
    expect(stored.stages.test?.cases[0]?.diff[0]?.expected).toBe('a\u2400b\t1');
  });

  it('refuses a result that belongs to another target or challenge, storing nothing', async () => {
    const s = await submit('wc-sum');
    await expect(
      recordJudgingResult(t.db, { ...s.linux, result: result('wc-sum', 'windows-amd') }),
    ).rejects.toBeInstanceOf(InvalidResultError);
    await expect(
      recordJudgingResult(t.db, { ...s.linux, result: result('wc-geo', 'linux-intel') }),
    ).rejects.toBeInstanceOf(InvalidResultError);
    expect(await runCount(s.linux.judgingId)).toBe(0);
    const judging = await t.db.judging.findUniqueOrThrow({ where: { id: s.linux.judgingId } });
    expect(judging.status).toBe('QUEUED');
  });
});

describe('requestRejudge', () => {
  it('starts a new round: old results cleared, late old-round results ignored, audited', async () => {
    const s = await submit('wc-sum');
    await recordJudgingResult(t.db, { ...s.linux, result: result('wc-sum', 'linux-intel') });
    await recordJudgingResult(t.db, { ...s.windows, result: result('wc-sum', 'windows-amd') });

    const judgings = await requestRejudge(t.db, {
      actorId: organizerId,
      reason: 'benchmark input changed',
      submissionId: s.submissionId,
    });
    expect(judgings.map((j) => [j.target, j.round]).sort()).toEqual([
      ['linux-intel', 1],
      ['windows-amd', 1],
    ]);
    expect(await runCount(s.linux.judgingId)).toBe(0);
    const submission = await t.db.submission.findUniqueOrThrow({ where: { id: s.submissionId } });
    expect(submission).toMatchObject({ status: 'QUEUED', verdict: null, score: null });

    const late = await recordJudgingResult(t.db, {
      judgingId: s.linux.judgingId,
      round: 0,
      result: result('wc-sum', 'linux-intel'),
    });
    expect(late.outcome).toBe('stale');
    expect(await runCount(s.linux.judgingId)).toBe(0);

    await recordJudgingResult(t.db, {
      judgingId: s.linux.judgingId,
      round: 1,
      result: result('wc-sum', 'linux-intel', { speedup: 4 }),
    });
    const done = await recordJudgingResult(t.db, {
      judgingId: s.windows.judgingId,
      round: 1,
      result: result('wc-sum', 'windows-amd', { speedup: 4 }),
    });
    expect(done.submission.score).toBe(8);

    const audit = await t.db.auditLog.findMany({ where: { subjectId: s.submissionId } });
    expect(audit).toMatchObject([
      { actorId: organizerId, action: 'rejudge.submission', reason: 'benchmark input changed' },
    ]);
  });

  it('rejudges every submission of a challenge', async () => {
    const count = await t.db.submission.count({ where: { challenge: { slug: 'wc-geo' } } });
    const judgings = await requestRejudge(t.db, {
      actorId: organizerId,
      reason: 'new harness',
      challengeSlug: 'wc-geo',
    });
    expect(judgings).toHaveLength(count * 2);
    expect(
      await t.db.judging.count({
        where: { submission: { challenge: { slug: 'wc-geo' } }, status: { not: 'QUEUED' } },
      }),
    ).toBe(0);
    await appendAuditLog(t.db, { actorId: null, action: 'rejudge.challenge', reason: 'probe' });
    expect(await t.db.auditLog.count({ where: { action: 'rejudge.challenge' } })).toBe(2);
  });
});

describe('host calibrations', () => {
  it('keeps one baseline per host, challenge version and target, replaced when re-measured', async () => {
    const host = result('wc-sum', 'linux-intel').host;
    const first = await recordHostCalibration(t.db, {
      challengeSlug: 'wc-sum',
      version,
      target: 'linux-intel',
      host,
      baselineMedianMs: 812.5,
      runs: 5,
      measuredAt: new Date('2026-11-30T09:00:00Z'),
    });
    const lookup = {
      hostFingerprintHash: first.hostFingerprintHash,
      challengeSlug: 'wc-sum',
      version,
      target: 'linux-intel',
    };
    expect(await hostCalibration(t.db, lookup)).toMatchObject({ baselineMedianMs: 812.5 });
    await recordHostCalibration(t.db, {
      ...lookup,
      host,
      baselineMedianMs: 790,
      runs: 7,
      measuredAt: new Date('2026-11-30T10:00:00Z'),
    });
    expect(await hostCalibration(t.db, lookup)).toMatchObject({
      baselineMedianMs: 790,
      runs: 7,
    });
    expect(await t.db.hostCalibration.count()).toBe(1);
    // Another kernel is another host as far as timings go.
    const other = hostFingerprintHash({ ...host, kernel: '6.2.0' });
    expect(other).not.toBe(first.hostFingerprintHash);
    expect(await hostCalibration(t.db, { ...lookup, hostFingerprintHash: other })).toBeNull();
    expect(hostFingerprintHash({ ...host, devMode: !host.devMode })).toBe(
      first.hostFingerprintHash,
    );
  });
});
