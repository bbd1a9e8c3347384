// The final result as the pages and exports show it: shared places ("2="), the error rate's words,
// time left, a repeat series' spread, and the CSV and Markdown exports of a final table.
import { describe, expect, it } from 'vitest';
import { MIN_FINAL_ROUNDS } from '../../contracts/final';
import { finalCsv, finalMarkdown } from '../../lib/server/web/final-export';
import { startFinalFormSchema, repeatFormSchema } from '../../lib/server/web/final-forms';
import { sessionLive } from '../../lib/server/web/final-progress';
import type { FinalTable, FinalTableRow } from '../../lib/server/web/final-table';
import {
  formatErrorRate,
  formatSpread,
  formatTimeLeft,
  paceEstimateMs,
  placeLabel,
  seriesSpread,
  sharedWith,
} from '../../lib/server/web/final-words';

function row(over: Partial<FinalTableRow>): FinalTableRow {
  return {
    userId: 'u',
    userName: 'Name',
    submissionId: 's',
    selectedExplicitly: false,
    provisionalScore: 2,
    place: 1,
    placeLabel: '1',
    tiedWith: [],
    sharedWith: '',
    tieReason: null,
    score: 2,
    scoreCiLow: 1.9,
    scoreCiHigh: 2.1,
    targets: { 'linux-intel': { speedup: 2, ciLow: 1.9, ciHigh: 2.1, rounds: 5 } },
    plausibilityFlags: [],
    excludedReason: null,
    ...over,
  };
}

const table: FinalTable = {
  challenge: { slug: 'wordcount', title: 'Word count', formula: 'SUM' },
  evaluationId: 'e1',
  status: 'DONE',
  publishedAt: new Date('2026-12-01T18:00:00Z'),
  finishedAt: new Date('2026-12-01T17:50:00Z'),
  rounds: 5,
  errorRate: 0.05,
  spreadAcrossHosts: false,
  method: 'Places by Holm-corrected paired tests.',
  targets: ['linux-intel'],
  rows: [
    row({ userId: 'a', userName: 'Ada', place: 1, placeLabel: '1', score: 3 }),
    row({
      userId: 'b',
      userName: '=HYPERLINK("x")',
      place: 2,
      placeLabel: '2=',
      tiedWith: ['Cy'],
      sharedWith: 'shared with Cy',
      tieReason: 'The judge cannot tell them apart (p = 0.4 > 0.025).',
    }),
    row({
      userId: 'c',
      userName: 'Cy',
      place: 2,
      placeLabel: '2=',
      tiedWith: ['=HYPERLINK("x")'],
      tieReason: 'The judge cannot tell them apart (p = 0.4 > 0.025).',
      selectedExplicitly: true,
    }),
    row({
      userId: 'd',
      userName: 'Dee',
      place: null,
      placeLabel: 'excluded',
      score: null,
      scoreCiLow: null,
      scoreCiHigh: null,
      targets: {},
      excludedReason: 'wrong output on the final input',
    }),
  ],
};

describe('final words', () => {
  it('marks a shared place with "=" and names the others', () => {
    expect(placeLabel(2, ['Bob'])).toBe('2=');
    expect(placeLabel(1, [])).toBe('1');
    expect(placeLabel(null, [])).toBe('–');
    expect(sharedWith(['A', 'B', 'C'])).toBe('shared with A, B and C');
  });

  it('says error rates and time left in words', () => {
    expect(formatErrorRate(0.05)).toBe('5%');
    expect(formatErrorRate(0.025)).toBe('2.5%');
    expect(formatTimeLeft(45_000)).toBe('about 45 s');
    expect(formatTimeLeft(12 * 60_000)).toBe('about 12 min');
    expect(formatTimeLeft(null)).toBeNull();
    const startedAt = new Date(0);
    expect(paceEstimateMs({ roundsDone: 2, roundsPlanned: 10, startedAt }, 60_000)).toBe(240_000);
    expect(paceEstimateMs({ roundsDone: 0, roundsPlanned: 10, startedAt }, 60_000)).toBeNull();
  });

  it("gives a repeat series' min–max and coefficient of variation", () => {
    const spread = seriesSpread([2, 2.2, null, 1.8]);
    expect(spread).toMatchObject({ count: 3, min: 1.8, max: 2.2 });
    expect(spread.cv).toBeCloseTo(0.1, 6);
    expect(formatSpread(spread)).toBe('1.80×–2.20× · CV 10.0%');
    expect(formatSpread(seriesSpread([null]))).toBe('no speedup yet');
    expect(seriesSpread([3]).cv).toBeNull();
  });
});

describe('final forms', () => {
  it('takes an error rate as a fraction or a percentage, within bounds', () => {
    const base = {
      slug: 'wordcount',
      rounds: String(MIN_FINAL_ROUNDS),
      keepProvisionalSeed: false,
      spreadAcrossHosts: false,
    };
    expect(startFinalFormSchema.parse({ ...base, errorRate: '5%' }).errorRate).toBeCloseTo(0.05);
    expect(startFinalFormSchema.parse({ ...base, errorRate: '0.01' }).errorRate).toBe(0.01);
    expect(startFinalFormSchema.safeParse({ ...base, errorRate: '0.5' }).success).toBe(false);
    expect(
      startFinalFormSchema.safeParse({
        ...base,
        rounds: String(MIN_FINAL_ROUNDS - 1),
        errorRate: '0.05',
      }).success,
    ).toBe(false);
  });

  it('asks for 2 to 20 repeats with a reason', () => {
    const base = { submissionId: 's1', target: '', reason: 'dispute' };
    expect(repeatFormSchema.parse({ ...base, times: '3' }).times).toBe(3);
    expect(repeatFormSchema.safeParse({ ...base, times: '1' }).success).toBe(false);
    expect(repeatFormSchema.safeParse({ ...base, times: '21' }).success).toBe(false);
    expect(repeatFormSchema.safeParse({ ...base, times: '3', reason: ' ' }).success).toBe(false);
    expect(repeatFormSchema.safeParse({ ...base, times: '3', target: 'mac' }).success).toBe(false);
  });
});

describe('final exports', () => {
  it('writes one CSV row per finalist with raw figures, shared places and defused formulas', () => {
    const lines = finalCsv(table)
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      'place,shared_place,tied_with,contestant,linux-intel_speedup,linux-intel_ci_low,linux-intel_ci_high,linux-intel_rounds,score,score_low,score_high,provisional_score,selected_by_contestant,excluded_reason,tie_reason,error_rate',
    );
    expect(lines).toHaveLength(5);
    expect(lines[2]).toContain(`2,yes,Cy,"'=HYPERLINK(""x"")"`);
    expect(lines[3]).toContain(',yes,');
    expect(lines[4]).toMatch(/^,no,,Dee,,,,,,,,2,no,wrong output on the final input,,0\.05$/);
  });

  it('writes the Markdown table with "2=", the tie reasons, the excluded, method and error rate', () => {
    const md = finalMarkdown(table, new Date('2026-12-01T18:05:00Z'));
    expect(md).toContain('## Word count: final result');
    expect(md).toContain('| 2= | =HYPERLINK\\("x"\\) | 2.00× (1.90–2.10) | 2.000 (1.900–2.100) |');
    // One line per shared place, not one per member.
    expect(md.match(/^- 2=:/gm)).toHaveLength(1);
    expect(md).toContain('- Dee: wrong output on the final input');
    expect(md).toContain('Method: Places by Holm\\-corrected paired tests\\.');
    expect(md).toContain('Error rate 5%');
    expect(md).not.toContain('| Dee |');
  });
});

describe('a running session as the console shows it', () => {
  const row = {
    sessionId: 's1',
    target: 'linux-intel',
    status: 'JUDGING' as const,
    parts: 2,
    roundsDone: 2,
    roundsPlanned: 10,
    startedAt: new Date(0),
  };
  const part = (p: number, roundsDone: number, etaMs: number | null) => ({
    sessionId: 's1',
    part: p,
    stage: 'rounds' as const,
    roundsDone,
    roundsPlanned: 5,
    etaMs,
    message: `part ${p}: round ${roundsDone + 1}`,
  });

  it("takes the parts' rounds when fresher than the checkpoint, and the slowest part's estimate", () => {
    const live = sessionLive(row, [part(0, 3, 40_000), part(1, 2, 90_000)], 60_000);
    expect(live).toMatchObject({ stage: 'rounds', roundsDone: 5, etaMs: 90_000 });
    expect(live.messages).toEqual(['part 0: round 4', 'part 1: round 3']);
  });

  it("falls back to the session's own pace, and never counts past the plan", () => {
    expect(sessionLive(row, [], 60_000)).toMatchObject({ stage: 'rounds', etaMs: 240_000 });
    expect(sessionLive({ ...row, roundsDone: 12 }, [], 60_000).roundsDone).toBe(10);
    expect(sessionLive({ ...row, status: 'DONE' }, [], 60_000)).toMatchObject({
      stage: 'finished',
      etaMs: 0,
    });
  });
});
