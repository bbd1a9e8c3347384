import { describe, expect, it } from 'vitest';
import type { TestCaseResult } from '../../contracts';
import { decideVerdict, type VerdictFacts } from '../../runner/judge/verdict';

function testCase(
  outcome: TestCaseResult['outcome'],
  required = true,
  name = 'case',
): TestCaseResult {
  return { group: 'g', name, required, outcome, wallMs: 1, diff: [], message: '' };
}

const passing: VerdictFacts = {
  intake: { ok: true },
  build: { ok: true },
  tests: [testCase('passed'), testCase('passed')],
  measuredRuns: ['ok', 'ok', 'ok'],
};

describe('decideVerdict', () => {
  it('accepts when every stage passed', () => {
    expect(decideVerdict(passing).verdict).toBe('ACCEPTED');
  });

  it('a judge error wins over anything the contestant did', () => {
    const d = decideVerdict({
      ...passing,
      intake: { ok: false },
      judgeError: 'sandbox unavailable',
    });
    expect(d.verdict).toBe('JUDGE_ERROR');
    expect(d.reason).toContain('sandbox unavailable');
  });

  it('rejection, then build error, in pipeline order', () => {
    expect(
      decideVerdict({ ...passing, intake: { ok: false, message: 'touches main.cpp' } }),
    ).toMatchObject({
      verdict: 'REJECTED',
      reason: 'touches main.cpp',
    });
    expect(decideVerdict({ ...passing, build: { ok: false } }).verdict).toBe('BUILD_ERROR');
    expect(
      decideVerdict({ ...passing, build: { ok: false, limitExceeded: 'time' } }).reason,
    ).toContain('time limit');
  });

  it.each([
    ['wrong-answer', 'WRONG_ANSWER'],
    ['runtime-error', 'RUNTIME_ERROR'],
    ['time-limit', 'TIME_LIMIT_EXCEEDED'],
    ['memory-limit', 'MEMORY_LIMIT_EXCEEDED'],
    ['output-limit', 'OUTPUT_LIMIT_EXCEEDED'],
  ] as const)('a required test ending in %s gives %s', (outcome, verdict) => {
    const d = decideVerdict({
      ...passing,
      tests: [testCase('passed'), testCase(outcome, true, 'bad')],
    });
    expect(d.verdict).toBe(verdict);
    expect(d.reason).toContain('g/bad');
  });

  it('the first failing required test decides, advisory failures only warn', () => {
    const d = decideVerdict({
      ...passing,
      tests: [
        testCase('time-limit', false, 'adv'),
        testCase('runtime-error', true, 'first'),
        testCase('wrong-answer'),
      ],
    });
    expect(d.verdict).toBe('RUNTIME_ERROR');
    expect(d.warnings).toEqual(['advisory test g/adv failed: time-limit']);
    const accepted = decideVerdict({ ...passing, tests: [testCase('wrong-answer', false, 'adv')] });
    expect(accepted.verdict).toBe('ACCEPTED');
    expect(accepted.warnings).toHaveLength(1);
    // The headline does not say "correct on every test" when an advisory one failed.
    expect(accepted.reason).toBe(
      'correct on every required test and every benchmark run; 1 advisory test failed (g/adv)',
    );
    expect(decideVerdict(passing).reason).toBe('correct on every test and every benchmark run');
  });

  it('skipped tests are neither failures nor warnings', () => {
    const d = decideVerdict({
      ...passing,
      tests: [testCase('passed'), testCase('skipped', false), testCase('skipped')],
    });
    expect(d).toMatchObject({ verdict: 'ACCEPTED', warnings: [] });
  });

  it('a bad benchmark run decides after the tests passed', () => {
    const d = decideVerdict({ ...passing, measuredRuns: ['ok', 'wrong-answer', 'time-limit'] });
    expect(d.verdict).toBe('WRONG_ANSWER');
    expect(d.reason).toBe('benchmark run 2: wrong-answer');
  });

  it('a stage that reported nothing is the platform fault', () => {
    expect(decideVerdict({ intake: { ok: true } }).verdict).toBe('JUDGE_ERROR');
    expect(decideVerdict({ ...passing, measuredRuns: undefined }).verdict).toBe('JUDGE_ERROR');
  });
});
