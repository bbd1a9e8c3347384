// Disturbance evidence and residency on this machine: a real judging stores the disturbance evidence of every run; a patch
// that evicts its input (and its libraries) from the page cache as it finishes cannot make the
// baseline's runs read cold, because every run of either side starts with them re-warmed; and a
// solution that starts a thread is flagged under the single-thread rule.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { judgingResultSchema, type JudgingResult, type Run } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import { judgeForTest, makePatch, solutionSource } from '../helpers/judging';

const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'measure');
const options = {
  // 8 MiB: 2048 pages, long enough for the eviction to be plain in the page counts.
  benchmarkBytes: 8 << 20,
  publicBytes: null,
  runPolicy: { warmups: 1, minPairs: 3, maxPairs: 4 },
  // The evidence is the measure stage's; the profile stage (its cachegrind rebuild and runs) adds
  // nothing these tests look at.
  profile: false,
};

async function fixturePatch(name: string): Promise<string> {
  const code = await readFile(path.join(FIXTURES, name), 'utf8');
  return makePatch({ 'wordcount.cpp': await solutionSource(code) });
}

let evicting: JudgingResult;
let threaded: JudgingResult;

beforeAll(async () => {
  evicting = await judgeForTest(await fixturePatch('evict-input.cpp'), options);
  threaded = await judgeForTest(await fixturePatch('two-threads.cpp'), options);
}, 900_000);

const benchmarkRuns = (r: JudgingResult): Run[] => r.stages.measure?.runs ?? [];
const inputResidency = (run: Run) => run.evidence?.residency.find((f) => f.file === 'input');

describe('disturbance evidence', () => {
  it('is stored for every run, from outside the program, and survives the result schema', () => {
    expect(evicting.verdict, evicting.message).toBe('ACCEPTED');
    const parsed = judgingResultSchema.parse(JSON.parse(JSON.stringify(evicting)));
    const runs = benchmarkRuns(parsed);
    expect(runs.filter((r) => r.kind === 'timed').length).toBeGreaterThanOrEqual(6);
    for (const run of runs) {
      const e = run.evidence!;
      expect(e, `${run.kind} ${run.side} #${run.pair}`).toBeTruthy();
      expect(e.cpuMs).toBeGreaterThan(0);
      expect(e.utilization).toBeGreaterThan(0);
      expect(e.utilization).toBeLessThan(1.2);
      // Root reads /proc/stat and counts migrations: none of these may be missing here.
      expect(e.otherTasksMs).not.toBeNull();
      expect(e.stealMs).not.toBeNull();
      expect(e.tickMs).toBeGreaterThan(0);
      expect(e.cpuMigrations).toBe(0);
      expect(e.tasksStarted).toBe(0);
      // A run counts as disturbed exactly when its pair was discarded (or a CPU-time fallback).
      if (run.kind === 'timed' && parsed.stages.measure!.estimate?.basis !== 'cpu-time')
        expect(run.discarded ?? false).toBe(e.disturbed.length > 0 || partnerDisturbed(runs, run));
    }
    const m = parsed.stages.measure!;
    expect(m.disturbance).toBeTruthy();
    expect(m.disturbance!.thresholds.maxOtherShare).toBeGreaterThan(0);
    expect(m.disturbance!.solutionTasksStarted).toBe(0);
    expect(m.cpuTimeEstimate?.basis).toBe('cpu-time');
    expect(m.cpuTimeEstimate!.speedup).toBeGreaterThan(0);
  });
});

function partnerDisturbed(runs: Run[], run: Run): boolean {
  const partner = runs.find(
    (r) => r.kind === 'timed' && r.pair === run.pair && r.side !== run.side,
  );
  return (partner?.evidence?.disturbed.length ?? 0) > 0;
}

describe('a solution that evicts its input from the page cache', () => {
  it('did evict it: the run after each solution run found the input (partly) gone', () => {
    const runs = benchmarkRuns(evicting);
    const afterSolution = runs.filter((r, i) => i > 0 && runs[i - 1]!.side === 'solution');
    expect(afterSolution.length).toBeGreaterThanOrEqual(3);
    for (const run of afterSolution) {
      const input = inputResidency(run)!;
      expect(input.residentBefore, `${run.kind} ${run.side} #${run.pair}`).toBeLessThan(
        input.pages / 2,
      );
    }
  });

  it('never reaches the baseline: every baseline run started with the input wholly resident', () => {
    const baselineRuns = benchmarkRuns(evicting).filter((r) => r.side === 'baseline');
    expect(baselineRuns.length).toBeGreaterThanOrEqual(4);
    for (const run of baselineRuns) {
      const input = inputResidency(run)!;
      expect(input.pages).toBe(2048);
      expect(input.residentAfter, `baseline ${run.kind} #${run.pair}`).toBe(input.pages);
      // Every file the run reads was checked: the input, the program and its libraries.
      expect(run.evidence!.residency.map((f) => f.file)).toEqual(
        expect.arrayContaining(['input', 'program', expect.stringMatching(/^libstdc\+\+/)]),
      );
      for (const file of run.evidence!.residency) expect(file.residentAfter).toBe(file.pages);
    }
    // Read from the page cache. Run outside the sandbox with its binary and libraries evicted
    // (posix_fadvise DONTNEED, as this patch does), the baseline took 4 major faults on this
    // machine every time (libc and the loader stay cached: other processes map them); without the
    // re-warm every baseline run here would fault like that. A warm run takes none, except that the
    // kernel also counts a fault it had to retry as major (mm_account_fault: FAULT_FLAG_TRIED; the
    // page was locked by another process's fault, no disk read), which a busy host shows now and
    // then: so no run may fault like a cold one, and not every run may fault at all.
    const majorFaults = baselineRuns.map((r) => r.stats.majorFaults);
    const shown = `major faults per baseline run: ${majorFaults.join(', ')}`;
    expect(Math.max(...majorFaults), shown).toBeLessThan(4);
    expect(
      majorFaults.reduce((a, b) => a + b, 0),
      shown,
    ).toBeLessThan(baselineRuns.length);
  });
});

describe('a solution that starts a thread', () => {
  it('is flagged under the single-thread rule, with the count in every run', () => {
    expect(threaded.verdict, threaded.message).toBe('ACCEPTED');
    const solutionRuns = benchmarkRuns(threaded).filter((r) => r.side === 'solution');
    for (const run of solutionRuns) expect(run.evidence!.tasksStarted).toBe(1);
    for (const run of benchmarkRuns(threaded).filter((r) => r.side === 'baseline'))
      expect(run.evidence!.tasksStarted).toBe(0);
    expect(threaded.stages.measure!.disturbance!.solutionTasksStarted).toBe(1);
    expect(threaded.warnings.join('\n')).toMatch(
      /single-thread rule: the solution started 1 thread or process/,
    );
  });
});
