// The leaderboard table against the real PostgreSQL: per-target figures read from the stored
// results, submission counts, labels, shared ranks, ties, and disqualified submissions kept out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Verdict } from '../../contracts';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { disqualifySubmission } from '../../lib/server/db/submissions/disqualify-submission';
import { NotFoundError } from '../../lib/server/db/errors';
import { getLeaderboardTable } from '../../lib/server/db/leaderboard/get-leaderboard-table';
import { getMyRanks } from '../../lib/server/db/leaderboard/get-my-ranks';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { leaderboardCsv } from '../../lib/server/web/leaderboard-export';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

let t: TestDatabase;
/** The registered version: the manifest's, as the runners' results carry it. */
let version: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
  await registerChallenge(t.db, { slug: 'empty-one' });
});
afterAll(async () => {
  await t?.drop();
});

/** A judged submission with speedups per target, made at the given minute. */
async function judged(
  userId: string,
  minute: number,
  speedups: { linux: number; windows: number },
  verdict: Verdict = 'ACCEPTED',
) {
  const { submissionId, judgings } = await createSubmission(t.db, {
    userId,
    challengeSlug: 'wordcount',
    patchText: `patch ${userId} ${minute}`,
  });
  await t.db.submission.update({
    where: { id: submissionId },
    data: { createdAt: new Date(Date.UTC(2026, 10, 30, 12, minute)) },
  });
  for (const j of judgings) {
    const target = j.target as 'linux-intel' | 'windows-amd';
    await recordJudgingResult(t.db, {
      judgingId: j.judgingId,
      round: j.round,
      result: makeResult({
        slug: 'wordcount',
        version,
        target,
        speedup: target === 'linux-intel' ? speedups.linux : speedups.windows,
        verdict: target === 'windows-amd' ? verdict : 'ACCEPTED',
      }),
    });
  }
  return submissionId;
}

describe('getLeaderboardTable', () => {
  it('shows each best submission with per-target figures, counts, ranks and ties', async () => {
    const ada = await makeUser(t.db, 'ada');
    const bob = await makeUser(t.db, 'bob');
    const cy = await makeUser(t.db, 'cy');
    const dee = await makeUser(t.db, 'dee');
    await judged(ada, 1, { linux: 1.5, windows: 1.5 });
    await judged(ada, 2, { linux: 4, windows: 2 });
    await judged(ada, 3, { linux: 9, windows: 9 }, 'WRONG_ANSWER');
    // Within 2% of ada's 6 on both targets: their intervals overlap.
    await judged(bob, 4, { linux: 3.95, windows: 2 });
    await judged(cy, 5, { linux: 2, windows: 1 });
    await judged(dee, 6, { linux: 2, windows: 1 });
    // Dee's best is disqualified: she falls back to an equal score made later.
    const deeCheat = await judged(dee, 7, { linux: 50, windows: 50 });
    await disqualifySubmission(t.db, { actorId: ada, submissionId: deeCheat, reason: 'cached' });

    const table = await getLeaderboardTable(t.db, { challengeSlug: 'wordcount' });
    expect(table.challenge).toEqual({
      slug: 'wordcount',
      title: 'Word count',
      formula: 'SUM',
      solutionsPublished: false,
    });
    expect(table.targets).toEqual(['linux-intel', 'windows-amd']);
    expect(
      table.rows.map((r) => [r.rank, r.userName, r.score, r.submissions, r.tiedWithAbove]),
    ).toEqual([
      [1, 'ada', 6, 3, false],
      [2, 'bob', 5.95, 1, true],
      [3, 'cy', 3, 1, false],
      [3, 'dee', 3, 2, true],
    ]);
    expect(table.rows.some((r) => r.score === 100)).toBe(false);

    const [first] = table.rows;
    expect(first?.submittedAt).toEqual(new Date(Date.UTC(2026, 10, 30, 12, 2)));
    expect(first?.targets['linux-intel']).toEqual({
      solutionMs: 25, // makeResult: 100 ms baseline / 4×
      baselineMs: 100,
      speedup: 4,
      ciLow: 4 * 0.98,
      ciHigh: 4 * 1.02,
      emulated: false,
      devMode: true,
      basis: 'wall-time',
    });
    expect(first?.targets['windows-amd']).toMatchObject({ solutionMs: 50, emulated: true });
    expect(first?.scoreLow).toBeCloseTo(6 * 0.98);
    expect(first?.scoreHigh).toBeCloseTo(6 * 1.02);
    // Each row names its contestant and the submission that counts (the page links it once published).
    expect(first?.userId).toBe(ada);
    expect(first?.submissionId).toBe(
      (await t.db.leaderboardEntry.findFirstOrThrow({ where: { userId: ada } })).submissionId,
    );

    // The export lists the same rows and never the disqualified score.
    const csv = leaderboardCsv(table).trim().split('\r\n');
    expect(csv.slice(1).map((line) => line.split(',').slice(0, 3).join(','))).toEqual([
      '1,no,ada',
      '2,yes,bob',
      '3,no,cy',
      '3,yes,dee',
    ]);
  });

  it('is empty for a challenge nobody has solved, and refuses an unknown one', async () => {
    const empty = await getLeaderboardTable(t.db, { challengeSlug: 'empty-one' });
    expect(empty.rows).toEqual([]);
    expect(empty.targets).toEqual(['linux-intel', 'windows-amd']);
    await expect(getLeaderboardTable(t.db, { challengeSlug: 'nope' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('getMyRanks', () => {
  it('gives a contestant their shared place and the submission that counts', async () => {
    const eve = await makeUser(t.db, 'eve');
    await judged(eve, 8, { linux: 1.5, windows: 1.5 });
    const best = await judged(eve, 9, { linux: 2.5, windows: 1 });
    const [rank] = await getMyRanks(t.db, { userId: eve });
    const table = await getLeaderboardTable(t.db, { challengeSlug: 'wordcount' });
    const row = table.rows.find((r) => r.userId === eve)!;
    expect({ rank: rank?.rank, of: rank?.of, submissionId: rank?.submissionId }).toEqual({
      rank: row.rank,
      of: table.rows.length,
      submissionId: best,
    });
    expect(rank?.challenge.slug).toBe('wordcount');
    expect(await getMyRanks(t.db, { userId: await makeUser(t.db, 'nobody') })).toEqual([]);
  });
});
