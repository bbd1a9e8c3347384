// The verdict, decided by one pure function from the facts the stages established. Nothing else in
// the judge chooses a verdict, so the rules below are the whole policy and are unit-tested alone.
import type { TestCaseResult, TestOutcome, Verdict } from '../../contracts';

/** How a timed run on the benchmark input ended. */
export type RunOutcome = Exclude<TestOutcome, 'passed' | 'skipped'> | 'ok';
type Failure = Exclude<TestOutcome, 'passed' | 'skipped'>;

export interface VerdictFacts {
  /** A platform fault (sandbox missing, compiler of the baseline failed, I/O error): never the contestant's. */
  judgeError?: string;
  intake: { ok: boolean; message?: string };
  build?: { ok: boolean; limitExceeded?: string | null; firstError?: string | null };
  tests?: TestCaseResult[];
  /** Outcomes of the solution's measured runs (warm-up and timed), in order. */
  measuredRuns?: RunOutcome[];
}

export interface VerdictDecision {
  verdict: Verdict;
  /** What decided it, in words a contestant reads. */
  reason: string;
  /** Advisory failures: reported, not fatal. */
  warnings: string[];
}

const OUTCOME_VERDICT: Record<Failure, Verdict> = {
  'wrong-answer': 'WRONG_ANSWER',
  'runtime-error': 'RUNTIME_ERROR',
  'time-limit': 'TIME_LIMIT_EXCEEDED',
  'memory-limit': 'MEMORY_LIMIT_EXCEEDED',
  'output-limit': 'OUTPUT_LIMIT_EXCEEDED',
};

export function decideVerdict(facts: VerdictFacts): VerdictDecision {
  const warnings: string[] = [];
  if (facts.judgeError !== undefined) {
    return { verdict: 'JUDGE_ERROR', reason: `judge error: ${facts.judgeError}`, warnings };
  }
  if (!facts.intake.ok) {
    return {
      verdict: 'REJECTED',
      reason: facts.intake.message ?? 'the patch was rejected',
      warnings,
    };
  }
  if (!facts.build) return incomplete('build', warnings);
  if (!facts.build.ok) {
    const why = facts.build.limitExceeded
      ? ` (build ${facts.build.limitExceeded} limit exceeded)`
      : '';
    const first = facts.build.firstError ? `: ${facts.build.firstError}` : '';
    return { verdict: 'BUILD_ERROR', reason: `the solution did not build${why}${first}`, warnings };
  }
  if (!facts.tests) return incomplete('test', warnings);
  let firstRequiredFailure: TestCaseResult | undefined;
  for (const test of facts.tests) {
    if (test.outcome === 'passed' || test.outcome === 'skipped') continue;
    if (test.required) firstRequiredFailure ??= test;
    else warnings.push(`advisory test ${test.group}/${test.name} failed: ${test.outcome}`);
  }
  if (firstRequiredFailure) {
    const t = firstRequiredFailure;
    return {
      verdict: OUTCOME_VERDICT[t.outcome as Failure],
      reason: `test ${t.group}/${t.name}: ${t.outcome}${t.message ? ` — ${t.message}` : ''}`,
      warnings,
    };
  }
  if (!facts.measuredRuns) return incomplete('measure', warnings);
  const failedRun = facts.measuredRuns.findIndex((o) => o !== 'ok');
  if (failedRun >= 0) {
    const outcome = facts.measuredRuns[failedRun] as Exclude<RunOutcome, 'ok'>;
    return {
      verdict: OUTCOME_VERDICT[outcome],
      reason: `benchmark run ${failedRun + 1}: ${outcome}`,
      warnings,
    };
  }
  // Advisory failures do not fail the patch, but the headline must not hide them.
  const advisory = facts.tests.filter(
    (t) => !t.required && t.outcome !== 'passed' && t.outcome !== 'skipped',
  );
  return {
    verdict: 'ACCEPTED',
    reason: advisory.length
      ? `correct on every required test and every benchmark run; ${advisory.length} advisory test${advisory.length === 1 ? '' : 's'} failed (${advisory
          .slice(0, 3)
          .map((t) => `${t.group}/${t.name}`)
          .join(', ')}${advisory.length > 3 ? ', …' : ''})`
      : 'correct on every test and every benchmark run',
    warnings,
  };
}

function incomplete(stage: string, warnings: string[]): VerdictDecision {
  // A stage that never reported is the platform's fault, not the contestant's.
  return {
    verdict: 'JUDGE_ERROR',
    reason: `judge error: the ${stage} stage reported nothing`,
    warnings,
  };
}
