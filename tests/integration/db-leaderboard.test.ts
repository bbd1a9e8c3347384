// The leaderboard against the real PostgreSQL: each user's best accepted submission, ranks with
// ties, and rows that follow disqualification and rejudges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { disqualifySubmission } from '../../lib/server/db/submissions/disqualify-submission';
import { NotFoundError } from '../../lib/server/db/errors';
import { getLeaderboardTable } from '../../lib/server/db/leaderboard/get-leaderboard-table';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { requestRejudge } from '../../lib/server/db/judgings/request-rejudge';
import type { Verdict } from '../../contracts';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { leaderboardEntries, makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

let t: TestDatabase;
/** The registered version: the manifest's, as the runners' results carry it. */
let version: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
});
afterAll(async () => {
  await t?.drop();
});

/** A judged submission with the sum score 2 × speedup, made at the given minute. */
async function judged(
  userId: string,
  minute: number,
  speedup: number,
  verdict: Verdict = 'ACCEPTED',
) {
  const { submissionId, judgings } = await createSubmission(t.db, {
    userId,
    challengeSlug: 'wordcount',
    patchText: `patch ${minute}`,
  });
  // Fixed submission times, so ties are ordered by something the test controls.
  await t.db.submission.update({
    where: { id: submissionId },
    data: { createdAt: new Date(Date.UTC(2026, 10, 30, 12, minute)) },
  });
  for (const j of judgings)
    await recordJudgingResult(t.db, {
      judgingId: j.judgingId,
      round: j.round,
      result: makeResult({
        slug: 'wordcount',
        version,
        target: j.target as 'linux-intel' | 'windows-amd',
        speedup,
        verdict: j.target === 'windows-amd' ? verdict : 'ACCEPTED',
      }),
    });
  return submissionId;
}

const summary = async () =>
  (await getLeaderboardTable(t.db, { challengeSlug: 'wordcount' })).rows.map((r) => [
    r.rank,
    r.userName,
    r.score,
  ]);

describe('the leaderboard (getLeaderboardTable)', () => {
  it('ranks each user by their best accepted submission; equal scores share a rank', async () => {
    const ada = await makeUser(t.db, 'ada');
    const bob = await makeUser(t.db, 'bob');
    const cy = await makeUser(t.db, 'cy');
    const dee = await makeUser(t.db, 'dee');
    await judged(ada, 1, 1.5);
    const adaBest = await judged(ada, 2, 2.5);
    await judged(bob, 3, 2.5);
    await judged(cy, 4, 2);
    await judged(cy, 5, 1.25);
    await judged(dee, 6, 9, 'WRONG_ANSWER');

    expect(await summary()).toEqual([
      [1, 'ada', 5],
      [1, 'bob', 5],
      [3, 'cy', 4],
    ]);
    const board = await getLeaderboardTable(t.db, { challengeSlug: 'wordcount' });
    expect(board.challenge).toMatchObject({ slug: 'wordcount', title: 'Word count' });
    expect((await leaderboardEntries(t.db, 'wordcount'))[0]).toMatchObject({
      userId: ada,
      submissionId: adaBest,
    });

    // Disqualified: ada falls back to her next best submission.
    await disqualifySubmission(t.db, {
      actorId: dee,
      submissionId: adaBest,
      reason: 'cached output',
    });
    expect(await summary()).toEqual([
      [1, 'bob', 5],
      [2, 'cy', 4],
      [3, 'ada', 3],
    ]);

    // A rejudged submission leaves the board until its new result is in.
    const bobBest = (await leaderboardEntries(t.db, 'wordcount')).find((e) => e.userId === bob);
    await requestRejudge(t.db, {
      actorId: dee,
      reason: 'noisy host',
      submissionId: bobBest?.submissionId ?? '',
    });
    expect(await summary()).toEqual([
      [1, 'cy', 4],
      [2, 'ada', 3],
    ]);
  });

  it('refuses an unknown challenge', async () => {
    await expect(getLeaderboardTable(t.db, { challengeSlug: 'nope' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});
