// One benchmark definition per leaderboard, at the scorer: a result timed on the contest's current
// input (the one the job carried) is ranked; one timed on another size or seed — the organizer
// changed the benchmark while the job was queued — is recorded as JUDGE_ERROR saying so, and never
// reaches the leaderboard. Real PostgreSQL (own schema); the score job is handed to the scorer's
// handler directly, with the children's answers a runner would have given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgingJobResultSchema,
  type JobBenchmark,
  type JudgingResult,
  type TargetId,
} from '../../contracts';
import { timedInput } from '../../lib/core/challenge/benchmark-definition';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { RefusedError } from '../../lib/server/db/errors';
import { getJudgingJob } from '../../lib/server/db/judgings/get-judging-job';
import { listAuditLog } from '../../lib/server/db/audit/list-audit-log';
import { updateContestSettings } from '../../lib/server/db/contest/update-contest-settings';
import { scoreSubmission } from '../../scorer/score-job';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import {
  acceptedSubmission,
  leaderboardEntries,
  makeResult,
  makeUser,
  registerChallenge,
} from '../../dev/db-fixtures';

let t: TestDatabase;
let version: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
  // The organizer's benchmark: what every job carries from now on.
  await t.db.challenge.update({
    where: { slug: 'wordcount' },
    data: { benchmarkBytes: 4 << 20, benchmarkSeed: 'the-organizer-seed' },
  });
});

afterAll(async () => {
  await t?.drop();
});

async function submitAndScore(
  timedOn: (target: TargetId, current: JobBenchmark) => JudgingResult['benchmark'],
) {
  const userId = await makeUser(t.db);
  const created = await createSubmission(t.db, {
    userId,
    challengeSlug: 'wordcount',
    patchText: 'p',
  });
  const values: Record<string, unknown> = {};
  for (const j of created.judgings) {
    const target = j.target as TargetId;
    const result = makeResult({ slug: 'wordcount', version, target, judgingId: j.judgingId });
    values[`bull:judge-${target}:judging-${j.judgingId}-r${j.round}`] =
      judgingJobResultSchema.parse({
        judgingId: j.judgingId,
        round: j.round,
        runnerId: `runner-${target}`,
        result: { ...result, benchmark: timedOn(target, created.benchmark) },
      });
  }
  const log: string[] = [];
  const outcome = await scoreSubmission(
    t.db,
    {
      data: { submissionId: created.submissionId, round: 0 },
      // BullMQ's getChildrenValues is generic in the value type: any answer, parsed by the scorer.
      getChildrenValues: async <T>() => values as Record<string, T>,
      getIgnoredChildrenFailures: async () => ({}),
    },
    (line) => log.push(line),
  );
  return { created, outcome, log };
}

describe('the scorer and the benchmark definition', () => {
  it('jobs carry the organizer’s benchmark, and results timed on it are ranked', async () => {
    const { created, outcome } = await submitAndScore((_, current) =>
      timedInput(current, current.seed ?? null),
    );
    expect(created.benchmark).toEqual({
      sizeBytes: 4 << 20,
      seed: 'the-organizer-seed',
      development: false,
      revision: 0,
    });
    const job = await getJudgingJob(t.db, created.judgings[0]!.judgingId);
    expect(job?.benchmark).toEqual(created.benchmark);
    expect(outcome).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
    expect(outcome.score).toBeGreaterThan(0);
  });

  it('a result timed on another input is not ranked: JUDGE_ERROR, with both inputs named', async () => {
    const { created, outcome, log } = await submitAndScore((target, current) =>
      target === 'linux-intel'
        ? timedInput({ sizeBytes: 1 << 20, development: true }, 'a-runner-seed')
        : timedInput(current, current.seed ?? null),
    );
    expect(outcome.verdict).toBe('JUDGE_ERROR');
    expect(outcome.score).toBeNull();
    const judgings = await t.db.judging.findMany({
      where: { submissionId: created.submissionId },
      select: { verdict: true, speedup: true, result: true, target: { select: { name: true } } },
    });
    const linux = judgings.find((j) => j.target.name === 'linux-intel')!;
    expect(linux.verdict).toBe('JUDGE_ERROR');
    expect(linux.speedup).toBeNull();
    const warnings = (linux.result as { warnings: string[] }).warnings.join('\n');
    expect(warnings).toMatch(/Not ranked: timed on another benchmark input \(1MiB, seed \w{8}…\)/);
    expect(warnings).toContain("than the contest's current one (4MiB");
    expect(warnings).not.toContain('the-organizer-seed');
    expect(log.join('\n')).toMatch(/not ranked/);
    const leaderboard = await t.db.leaderboardEntry.count({
      where: { submissionId: created.submissionId },
    });
    expect(leaderboard).toBe(0);
  });
});

describe('changing the benchmark definition', () => {
  const settings = { deadline: null, submissionsPerHour: null, precision: null };

  it('must say what becomes of the recorded scores; a new board ranks only what follows', async () => {
    const organizer = await makeUser(t.db, 'the-organizer');
    const early = await makeUser(t.db);
    await acceptedSubmission(t.db, { userId: early, version, speedup: 3 });
    const ranked = (await leaderboardEntries(t.db, 'wordcount')).length;
    expect(ranked).toBeGreaterThan(0);
    const change = { ...settings, benchmarkBytes: 2 << 20 };

    await expect(
      updateContestSettings(t.db, { actorId: organizer, slug: 'wordcount', settings: change }),
    ).rejects.toBeInstanceOf(RefusedError);
    const before = await getJudgingJob(
      t.db,
      (await createSubmission(t.db, { userId: early, challengeSlug: 'wordcount', patchText: 'q' }))
        .judgings[0]!.judgingId,
    );

    const { benchmark } = await updateContestSettings(t.db, {
      actorId: organizer,
      slug: 'wordcount',
      settings: change,
      benchmarkScores: 'new-board',
      reason: 'the real size',
    });
    expect(benchmark).toEqual({ revision: before!.benchmark.revision! + 1, scores: 'new-board' });
    expect(await leaderboardEntries(t.db, 'wordcount')).toEqual([]);
    // The early contestant's earlier result stays theirs but is not ranked on the new board; a
    // submission judged on the new definition is.
    const later = await acceptedSubmission(t.db, { userId: early, version, speedup: 1.5 });
    expect((await leaderboardEntries(t.db, 'wordcount')).map((e) => e.submissionId)).toEqual([
      later,
    ]);
    const created = await createSubmission(t.db, {
      userId: early,
      challengeSlug: 'wordcount',
      patchText: 'r',
    });
    expect(created.benchmark).toMatchObject({
      sizeBytes: 2 << 20,
      development: false,
      revision: benchmark!.revision,
    });
    const audit = (await listAuditLog(t.db)).rows.find((r) => r.action === 'benchmark.change');
    expect(audit?.details).toContain('a new leaderboard from now on');
    expect(audit?.reason).toBe('the real size');
  });
});
