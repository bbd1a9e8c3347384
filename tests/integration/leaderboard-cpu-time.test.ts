// A speedup estimated from CPU time (the judge host too busy for clean wall-time pairs)
// is labelled on the leaderboard: the basis travels from the stored result into the leaderboard
// row's cells (lib/server/db/leaderboard/refresh-leaderboard-entry.ts), out of the table, into the page's note.
// Real PostgreSQL; the note rendered to HTML.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuTimeNote } from '../../app/challenges/[slug]/leaderboard/cpu-time-note';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { getLeaderboardTable } from '../../lib/server/db/leaderboard/get-leaderboard-table';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { CPU_TIME_EXPLANATION, cellLabels } from '../../lib/server/web/leaderboard-export';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

let t: TestDatabase;
let version: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
});
afterAll(async () => {
  await t?.drop();
});

/** An accepted submission; its linux-intel speedup on the given basis. */
async function accepted(userName: string, linuxBasis: 'wall-time' | 'cpu-time' | undefined) {
  const userId = await makeUser(t.db, userName);
  const { judgings } = await createSubmission(t.db, {
    userId,
    challengeSlug: 'wordcount',
    patchText: `--- a/wordcount.cpp\n+++ b/wordcount.cpp\n@@ -1 +1 @@\n-a\n+${userName}\n`,
  });
  for (const j of judgings) {
    const target = j.target as 'linux-intel' | 'windows-amd';
    const result = makeResult({ slug: 'wordcount', version, target, speedup: 3 });
    const estimate = result.stages.measure!.estimate!;
    if (target === 'linux-intel') {
      if (linuxBasis) estimate.basis = linuxBasis;
      else delete estimate.basis; // a result from before the basis was recorded: wall time
    }
    await recordJudgingResult(t.db, { judgingId: j.judgingId, round: j.round, result });
  }
  return userId;
}

describe('leaderboard: speedups estimated from CPU time', () => {
  it('carries the basis in the cell and labels the CPU-time ones, with the explanation', async () => {
    const busy = await accepted('busy-host', 'cpu-time');
    const quiet = await accepted('quiet-host', 'wall-time');
    const old = await accepted('older-result', undefined);
    const table = await getLeaderboardTable(t.db, { challengeSlug: 'wordcount' });
    const row = (userId: string) => table.rows.find((r) => r.userId === userId)!;
    expect(row(busy).targets['linux-intel']?.basis).toBe('cpu-time');
    expect(row(busy).targets['windows-amd']?.basis).toBe('wall-time');
    expect(row(quiet).targets['linux-intel']?.basis).toBe('wall-time');
    expect(row(old).targets['linux-intel']?.basis).toBe('wall-time');
    expect(cellLabels(row(busy).targets['linux-intel'])).toContain('CPU-time estimate');
    expect(cellLabels(row(quiet).targets['linux-intel'])).not.toContain('CPU-time estimate');

    const note = renderToStaticMarkup(createElement(CpuTimeNote, { table }));
    expect(note).toContain('data-testid="cpu-time-note"');
    expect(note).toContain(CPU_TIME_EXPLANATION.replace(/"/g, '&quot;').replace(/'/g, '&#x27;'));
    const without = { ...table, rows: table.rows.filter((r) => r.userId !== busy) };
    expect(renderToStaticMarkup(createElement(CpuTimeNote, { table: without }))).toBe('');
  });
});
