// The plausibility flag on the organizer's pages: the submissions list marks a submission whose
// judging was flagged (read from the stored result), and the organizer's line on the submission
// page says the figures and the flag. Real PostgreSQL; the component rendered to HTML.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JudgingResult } from '../../contracts';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { listSubmissionsForOrganizer } from '../../lib/server/db/submissions/list-submissions-for-organizer';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { plausibilityOf } from '../../lib/core/stats/plausibility';
import {
  PlausibilityLine,
  PlausibilityMark,
} from '../../app/organizer/_components/plausibility-line';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

let t: TestDatabase;
let version: number;
let ada: string;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
  ada = await makeUser(t.db, 'ada');
});
afterAll(async () => {
  await t?.drop();
});

/** An accepted result whose fastest solution run took `fastestMs` on a 1 GB/s host (1 MiB: 1.05 ms). */
function resultWith(
  target: 'linux-intel' | 'windows-amd',
  fastestMs: number | null,
): JudgingResult {
  const result = makeResult({ slug: 'wordcount', version, target, verdict: 'ACCEPTED' });
  const m = result.stages.measure!;
  m.plausibility =
    fastestMs === null
      ? null
      : plausibilityOf({ inputBytes: m.inputBytes, fastestMs, bandwidthBytesPerSecond: 1e9 });
  return result;
}

async function judged(fastest: Record<'linux-intel' | 'windows-amd', number | null>) {
  const { submissionId, judgings } = await createSubmission(t.db, {
    userId: ada,
    challengeSlug: 'wordcount',
    patchText: `--- a/wordcount.cpp\n+++ b/wordcount.cpp\n@@ -1 +1 @@\n-a\n+b ${Math.random()}\n`,
  });
  for (const j of judgings) {
    const target = j.target as 'linux-intel' | 'windows-amd';
    await recordJudgingResult(t.db, {
      judgingId: j.judgingId,
      round: j.round,
      result: resultWith(target, fastest[target]),
    });
  }
  return submissionId;
}

describe('the plausibility flag for organizers', () => {
  it('the submissions list marks the flagged submissions, with the targets that were flagged', async () => {
    const cheat = await judged({ 'linux-intel': 0.4, 'windows-amd': 50 });
    const honest = await judged({ 'linux-intel': 50, 'windows-amd': 50 });
    const unknown = await judged({ 'linux-intel': null, 'windows-amd': null });
    const { rows } = await listSubmissionsForOrganizer(t.db, { filters: {} });
    const flags = Object.fromEntries(rows.map((r) => [r.id, r.plausibilityFlagged]));
    expect(flags).toEqual({ [cheat]: ['linux-intel'], [honest]: [], [unknown]: [] });

    const mark = renderToStaticMarkup(
      createElement(PlausibilityMark, { flaggedTargets: ['linux-intel'] }),
    );
    expect(mark).toContain('implausibly fast');
    expect(mark).toContain('Implausibly fast on linux-intel');
    expect(renderToStaticMarkup(createElement(PlausibilityMark, { flaggedTargets: [] }))).toBe('');
  });

  it("the submission page's line: figures, and a clear flag when flagged", () => {
    const line = (fastestMs: number | null) =>
      renderToStaticMarkup(
        createElement(PlausibilityLine, {
          target: 'linux-intel',
          plausibility: resultWith('linux-intel', fastestMs).stages.measure!.plausibility,
        }),
      );
    const flagged = line(0.4);
    expect(flagged).toContain('data-flagged="true"');
    expect(flagged).toContain('Implausibly fast');
    expect(flagged).toMatch(
      /fastest run 0.4 ms, least plausible time 1.0 ms \(1.0 MiB input at 1.0 GB\/s/,
    );
    const fine = line(50);
    expect(fine).toContain('data-flagged="false"');
    expect(fine).not.toContain('Implausibly');
    expect(fine).toMatch(/fastest run 50.0 ms/);
    expect(line(null)).toMatch(/not checked, the runner could not measure/);
    // A result from before the check says nothing.
    expect(
      renderToStaticMarkup(
        createElement(PlausibilityLine, { target: 'linux-intel', plausibility: undefined }),
      ),
    ).toBe('');
  });
});
