// The chaos drill's plan and its invariants (dev/chaos/): a seed replays its plan, and each
// invariant fails the drill's records it is about — a lost or doubly recorded judging, a result
// on another benchmark, a re-run no fault explains, a health failure outside an outage.
import { describe, expect, it } from 'vitest';
import type { JobBenchmark } from '../../contracts';
import { timedInput } from '../../lib/core/challenge/benchmark-definition';
import { makeResult } from '../../dev/db-fixtures';
import {
  judgeChaos,
  recordedCounts,
  runnerStarts,
  type ChaosRecords,
  type JudgingRecord,
} from '../../dev/chaos/invariants';
import { FAULT_KINDS, planChaos } from '../../dev/chaos/plan';

const DEFINITION: JobBenchmark = {
  sizeBytes: 1 << 20,
  seed: 'contest-seed',
  development: true,
  maxPairs: 3,
  revision: 1,
};

function judging(id: string, target: string, extra: Partial<JudgingRecord> = {}): JudgingRecord {
  const result = {
    ...makeResult({
      slug: 'wordcount',
      version: 1,
      target: target as 'linux-intel' | 'windows-amd',
      judgingId: id,
    }),
    benchmark: timedInput(DEFINITION, DEFINITION.seed!),
  };
  return {
    id,
    submissionId: 's1',
    target,
    status: 'DONE',
    verdict: 'ACCEPTED',
    message: null,
    result,
    runRows: result.stages.measure!.runs.length,
    ...extra,
  };
}

const line = (at: number, source: string, text: string) => ({ at, source, line: text });

/** One submission judged on both targets, no fault, health fine: every invariant holds. */
function clean(): ChaosRecords {
  return {
    definition: { start: DEFINITION, end: DEFINITION },
    submissions: [{ id: 's1', status: 'DONE', verdict: 'ACCEPTED' }],
    judgings: [judging('j1', 'linux-intel'), judging('j2', 'windows-amd')],
    runnerLines: [
      line(100, 'runner-linux-intel#1', 'job judging-j1-r0: attempt 1 of 3 on host'),
      line(900, 'runner-linux-intel#1', 'job judging-j1-r0: ACCEPTED in 0.8 s'),
      line(150, 'runner-windows-amd#1', 'job judging-j2-r0: attempt 1 of 3 on host'),
      line(950, 'runner-windows-amd#1', 'job judging-j2-r0: ACCEPTED in 0.8 s'),
    ].sort((a, b) => a.at - b.at),
    killed: new Map(),
    scorerLines: [
      line(1000, 'scorer#1', '2026-01-01T00:00:00Z judging-j1-r0: j1:recorded → JUDGING'),
      line(1100, 'scorer#1', '2026-01-01T00:00:01Z judging-j2-r0: j2:recorded → DONE ACCEPTED'),
    ],
    faults: [],
    health: [
      { at: 0, ms: 5, answered: true, ok: true },
      { at: 500, ms: 5, answered: true, ok: true },
    ],
    healthGraceMs: 1000,
    secondScorerWarned: null,
  };
}

describe('the chaos plan', () => {
  it('is the same for the same seed, and another for another seed', () => {
    const options = { submissions: 8, faults: 7 };
    expect(planChaos({ seed: 'a1', ...options })).toEqual(planChaos({ seed: 'a1', ...options }));
    expect(planChaos({ seed: 'a1', ...options })).not.toEqual(
      planChaos({ seed: 'b2', ...options }),
    );
  });

  it('strikes with every kind when there are as many faults as kinds, while work is left', () => {
    for (const seed of ['x', 'y', 'z', '0c0ffee']) {
      const plan = planChaos({ seed, submissions: 6, faults: FAULT_KINDS.length });
      expect(new Set(plan.faults.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
      for (const f of plan.faults) expect(f.afterSettled).toBeLessThan(6 * 2 - 1);
      expect(plan.submissions).toHaveLength(6);
    }
  });

  it('starts one second scorer at most', () => {
    const plan = planChaos({ seed: 'many', submissions: 10, faults: 40 });
    expect(plan.faults.filter((f) => f.kind === 'second-scorer')).toHaveLength(1);
  });
});

describe('the chaos invariants', () => {
  it('hold for a clean drill, with its figures', () => {
    const { violations, figures } = judgeChaos(clean(), 2);
    expect(violations).toEqual([]);
    expect(figures).toMatchObject({ submissions: 1, judgingStarts: 2, reRuns: 0, lost: 0 });
  });

  it('count a submission not settled as lost, and a JUDGE_ERROR as a violation', () => {
    const records = clean();
    records.submissions[0]!.status = 'FAILED';
    records.judgings[1] = judging('j2', 'windows-amd', {
      verdict: 'JUDGE_ERROR',
      message: 'the runner failed',
    });
    const { violations, figures } = judgeChaos(records, 2);
    expect(figures.lost).toBe(1);
    expect(violations.join('\n')).toMatch(/s1 ended FAILED/);
    expect(violations.join('\n')).toMatch(/j2 \(windows-amd\) ended JUDGE_ERROR/);
  });

  it('count a submission the reconciler calls stuck as a violation', () => {
    const records = clean();
    const said = 'T reconcile: submission s1: judgings j2 (JUDGING, …) cannot finish; rejudge it';
    records.scorerLines.push(line(3000, 'scorer#1', said));
    expect(judgeChaos(records, 2).violations).toEqual([`the reconciler said: ${said}`]);
  });

  it('count a judging recorded twice as duplicated', () => {
    const records = clean();
    records.scorerLines.push(line(2000, 'second-scorer#1', 'T judging-j1-r0: j1:recorded → DONE'));
    expect(recordedCounts(records.scorerLines).get('j1')).toBe(2);
    expect(judgeChaos(records, 2).figures.duplicated).toBe(1);
  });

  it('refuse a result timed on another benchmark input', () => {
    const records = clean();
    records.judgings[0]!.result!.benchmark = timedInput(
      { ...DEFINITION, sizeBytes: 256 << 20 },
      'x',
    );
    expect(judgeChaos(records, 2).violations.join('\n')).toMatch(
      /j1 \(linux-intel\): timed on another benchmark input/,
    );
  });

  it('allow a re-run of work in flight at a fault, and refuse one no fault explains', () => {
    const records = clean();
    // The linux runner is killed at 500 while judging j1; its next start judges it again.
    records.runnerLines = [
      line(100, 'runner-linux-intel#1', 'job judging-j1-r0: attempt 1 of 3 on host'),
      line(3000, 'runner-linux-intel#2', 'job judging-j1-r0: attempt 1 of 3 on host'),
      line(3900, 'runner-linux-intel#2', 'job judging-j1-r0: ACCEPTED in 0.9 s'),
    ];
    records.killed.set('runner-linux-intel#1', 500);
    records.faults = [
      { kind: 'kill-runner', target: 'linux-intel', at: 500, until: 2500, detail: '' },
    ];
    expect(runnerStarts(records.runnerLines, records.killed)[0]!.end).toBe(500);
    expect(judgeChaos(records, 2)).toMatchObject({ violations: [], figures: { reRuns: 1 } });

    // The other target's runner killed, or the scorer: neither reaches j1's judging.
    for (const fault of [
      { kind: 'kill-runner' as const, target: 'windows-amd', at: 500, until: 2500, detail: '' },
      { kind: 'kill-scorer' as const, at: 500, until: 2500, detail: '' },
    ]) {
      records.faults = [fault];
      expect(judgeChaos(records, 2).violations).toEqual([
        expect.stringMatching(/judging-j1-r0 was judged again .* no fault cut its judging short/),
      ]);
    }

    // A Redis loss while it was judged does (its lock goes with the keys); one after it ended not.
    records.faults = [{ kind: 'redis-flush', at: 500, until: 500, detail: '' }];
    expect(judgeChaos(records, 2).violations).toEqual([]);
    records.runnerLines.splice(
      1,
      0,
      line(400, 'runner-linux-intel#1', 'job judging-j1-r0: ACCEPTED in 0.3 s'),
    );
    expect(judgeChaos(records, 2).violations).toEqual([
      'job judging-j1-r0 was judged again (runner-linux-intel#2) though no fault cut its judging short',
    ]);
  });

  it('allow health to fail while PostgreSQL is down, never otherwise, and measure the outage', () => {
    const records = clean();
    records.faults = [{ kind: 'postgres-restart', at: 1000, until: 3000, detail: '' }];
    records.health = [
      { at: 900, ms: 5, answered: true, ok: true },
      { at: 1200, ms: 5, answered: true, ok: false },
      { at: 3500, ms: 5, answered: true, ok: false },
      { at: 4200, ms: 5, answered: true, ok: true },
    ];
    const held = judgeChaos(records, 2);
    expect(held.violations).toEqual([]);
    expect(held.figures.maxHealthOutageMs).toBe(3000);

    records.health.push({ at: 9000, ms: 5001, answered: false, ok: false });
    expect(judgeChaos(records, 2).violations).toEqual([
      expect.stringMatching(/did not answer within 5001 ms/),
      expect.stringMatching(/failed at .*, outside any outage/),
    ]);
  });

  it('require the scorer with another environment to say so', () => {
    const records = clean();
    records.secondScorerWarned = false;
    expect(judgeChaos(records, 2).violations).toEqual([
      expect.stringMatching(/did not say it differs/),
    ]);
  });
});
