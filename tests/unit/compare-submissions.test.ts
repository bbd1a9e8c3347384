import { describe, expect, it } from 'vitest';
import type { JudgingView } from '../../lib/server/db/submissions/get-submission-view';
import { compareSubmissions } from '../../lib/server/web/compare-submissions';

function judging(target: string, speedup: number | null): JudgingView {
  return {
    judgingId: `${target}-${speedup}`,
    target,
    status: 'DONE',
    round: 0,
    attempts: 1,
    verdict: speedup === null ? 'WRONG_ANSWER' : 'ACCEPTED',
    message: null,
    speedup,
    ciLow: null,
    ciHigh: null,
    devMode: false,
    emulated: false,
    queuedAt: new Date(0),
    startedAt: null,
    finishedAt: null,
    result: null,
    resultUnreadable: false,
  };
}

describe('compareSubmissions', () => {
  it('puts both speedups side by side per target with the change, and leaves gaps empty', () => {
    const rows = compareSubmissions(
      [judging('linux-intel', 3), judging('windows-amd', null)],
      [judging('linux-intel', 2)],
    );
    expect(rows.map((r) => r.target)).toEqual(['linux-intel', 'windows-amd']);
    expect(rows[0]!.rows[0]).toMatchObject({
      label: 'speedup',
      current: 3,
      other: 2,
      ratio: 1.5,
      higherIsBetter: true,
    });
    expect(rows[1]!.rows[0]).toMatchObject({ current: null, other: null, ratio: null });
  });
});
