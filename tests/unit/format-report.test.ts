import { describe, expect, it } from 'vitest';
import { judgingResultSchema, type JudgingResult } from '../../contracts';
import { formatReport, speedupSection, testsSection } from '../../runner/judge/format-report';

const stats = {
  wallMs: 1000,
  userMs: 950,
  sysMs: 40,
  maxRssBytes: 64 << 20,
  minorFaults: 100,
  majorFaults: 0,
  voluntaryContextSwitches: 1,
  involuntaryContextSwitches: 2,
  cpuUtilization: 0.99,
};
const counts = {
  instructions: 1e9,
  dataReads: 1,
  dataWrites: 1,
  l1InstructionMisses: 1,
  l1DataMisses: 5e6,
  llMisses: 1e5,
  branches: 1,
  branchMispredictions: 2e6,
  estimatedCycles: 1.1e9,
};
const memory = {
  intervalMs: 5,
  durationMs: 1000,
  samples: 200,
  points: [],
  peaks: { rssBytes: 64 << 20, vmBytes: 80 << 20, anonBytes: 60 << 20, thpBytes: 0 },
};

const result: JudgingResult = judgingResultSchema.parse({
  schemaVersion: 1,
  judgingId: null,
  challenge: { slug: 'wordcount', version: 1 },
  target: 'linux-intel',
  verdict: 'ACCEPTED',
  message: 'correct on every test and every benchmark run',
  stages: {
    intake: {
      ok: true,
      reason: null,
      files: [{ path: 'wordcount.cpp', change: 'modified', additions: 3, deletions: 1 }],
      format: 'git-diff',
    },
    build: null,
    test: {
      cases: [
        { group: 'g', name: 'a', required: true, outcome: 'passed', wallMs: 1 },
        { group: 'g', name: 'b', required: false, outcome: 'skipped', wallMs: 0 },
      ],
    },
    measure: {
      inputBytes: 1 << 20,
      inputSha256: 'ab'.repeat(32),
      cpu: 1,
      runs: [
        {
          side: 'baseline',
          kind: 'timed',
          pair: 0,
          stats,
          outputBytes: 10,
          outputSha256: 'x',
          correct: true,
          exitCode: 0,
          signal: null,
        },
      ],
      estimate: {
        speedup: 2.5,
        ciLow: 2.4,
        ciHigh: 2.6,
        confidence: 0.979,
        halfWidthRel: 0.04,
        pairs: 10,
        method: 'order-statistic-median-of-ratios',
        stopReason: 'budget',
      },
      baseline: { n: 10, minMs: 990, medianMs: 1000, maxMs: 1100, cv: 0.02 },
      solution: { n: 10, minMs: 390, medianMs: 400, maxMs: 420, cv: 0.02 },
      counters: [
        {
          name: 'task-clock',
          unit: 'msec',
          kind: 'counter',
          status: 'counted',
          baseline: 990,
          solution: 396,
          ratio: 0.4,
          runningPercent: 100,
        },
        {
          name: 'cycles',
          unit: '',
          kind: 'counter',
          status: 'unsupported',
          baseline: null,
          solution: null,
          ratio: null,
          runningPercent: null,
        },
        {
          name: 'cache-misses',
          unit: '',
          kind: 'counter',
          status: 'counted',
          baseline: 2e6,
          solution: 1e6,
          ratio: 0.5,
          runningPercent: 42,
        },
        {
          name: 'IPC',
          unit: '',
          kind: 'derived',
          status: 'unsupported',
          baseline: null,
          solution: null,
          ratio: null,
          runningPercent: null,
        },
      ],
    },
    profile: {
      memory: { baseline: memory, solution: memory },
      topdown: {
        baseline: {
          source: 'TopdownL1',
          retiring: 0.25,
          badSpeculation: 0.05,
          frontendBound: 0.2,
          backendBound: 0.5,
        },
        solution: {
          source: 'TopdownL1',
          retiring: 0.5,
          badSpeculation: 0.1,
          frontendBound: 0.1,
          backendBound: 0.3,
        },
      },
      deterministic: {
        tool: 'cachegrind',
        inputBytes: 4 << 20,
        flags: ['-O3', '-march=x86-64-v3'],
        baseline: counts,
        solution: { ...counts, instructions: 4e8 },
        instructionSpeedup: 2.5,
      },
      notes: ['a note'],
    },
  },
  warnings: ['noisy host'],
  host: {
    hostname: 'h',
    os: 'Linux',
    kernel: '6',
    cpuModel: 'CPU',
    cpuVendor: 'GenuineIntel',
    cores: 2,
    compiler: 'clang 14',
    governor: null,
    turbo: null,
    sandbox: 'bubblewrap',
    devMode: true,
    emulated: false,
  },
  startedAt: '2026-11-29T00:00:00.000Z',
  finishedAt: '2026-11-29T00:01:00.000Z',
  durationMs: 60000,
  stageDurationsMs: { build: 1000, measure: 50000 },
});

describe('formatReport', () => {
  const text = formatReport(result);

  it('leads with the verdict, the labels and the speedup with its interval', () => {
    expect(text.split('\n')[0]).toBe('ACCEPTED  wordcount v1 on linux-intel [DEV MODE]');
    expect(text).toContain('Speedup 2.500×  (98% CI 2.400–2.600, ±4.0%, 10 pairs');
  });

  it('says when nothing changed: the solution is the baseline machine code', () => {
    expect(text).not.toContain('nothing changed');
    const side = {
      ok: true,
      cached: false,
      durationMs: 1,
      log: '',
      binarySha256: 'a'.repeat(64),
      limitExceeded: null,
    };
    const same = formatReport({
      ...result,
      stages: {
        ...result.stages,
        build: { baseline: side, solution: side, identicalBinaries: true },
      },
    });
    expect(same.split('\n')[2]).toMatch(
      /^ {2}nothing changed: the solution compiles to the baseline's/,
    );
  });

  it('shows counters side by side, unsupported as such, multiplexing noted', () => {
    expect(text).toMatch(/task-clock +990 msec +396 msec +×0\.400/);
    expect(text).toMatch(/cycles +unsupported on this host/);
    expect(text).toMatch(/= IPC +unsupported on this host/);
    expect(text).toContain('(counted 42% of the run)');
  });

  it('draws Top-Down bars whose widths follow the shares', () => {
    const line = text.split('\n').find((l) => l.trim().startsWith('baseline |'))!;
    const bar = line.slice(line.indexOf('|') + 1, line.lastIndexOf('|'));
    expect(bar).toBe('R'.repeat(10) + 'S'.repeat(2) + 'F'.repeat(8) + 'B'.repeat(20));
    expect(text).toContain('retiring 50.0%, bad speculation 10.0%, frontend 10.0%, backend 30.0%');
  });

  it('reports memory peaks, the instruction speedup, skipped tests and warnings', () => {
    expect(text).toMatch(/RSS +64\.0 MiB +64\.0 MiB/);
    expect(text).toContain('instruction speedup 2.500×');
    expect(text).toMatch(/instructions +1,000,000,000 +400,000,000 +×0\.400/);
    expect(text).toContain('Tests: 1/2 passed, 1 not run after a failure');
    expect(text).toContain('  - noisy host');
    expect(text).toContain('note: a note');
  });
});

describe('formatReport: CPU time and disturbance', () => {
  const measure = result.stages.measure!;
  const cpuTimeEstimate = {
    ...measure.estimate!,
    speedup: 2.45,
    ciLow: 2.4,
    ciHigh: 2.5,
    basis: 'cpu-time' as const,
  };
  const disturbance = {
    discardedPairs: 3,
    reasons: { 'other-tasks': 3 },
    tooBusy: false,
    thresholds: {
      maxOtherShare: 0.05,
      minUtilization: 0.9,
      maxStealShare: 0.02,
      maxDiscardedPairs: 30,
      cpuTimeFallback: false,
    },
    solutionTasksStarted: 0,
  };
  const evidence = {
    cpuMs: 990,
    utilization: 0.66,
    involuntaryContextSwitches: 80,
    otherTasksMs: 510,
    stealMs: 0,
    cpuMigrations: 0,
    tasksStarted: 0,
    tickMs: 10,
    residency: [{ file: 'input', pages: 256, residentBefore: 0, residentAfter: 256 }],
    disturbed: ['other-tasks'],
  };
  const withEvidence = (estimate: typeof measure.estimate) =>
    formatReport({
      ...result,
      stages: {
        ...result.stages,
        measure: {
          ...measure,
          estimate,
          cpuTimeEstimate,
          disturbance,
          runs: [{ ...measure.runs[0]!, evidence, discarded: true }],
        },
      },
    });

  it('puts the CPU-time speedup beside the wall one, and counts the discarded pairs', () => {
    const text = withEvidence(measure.estimate);
    expect(text).toContain(
      '  CPU-time speedup 2.450×  (CI 2.400–2.500, user + sys of the same pairs)',
    );
    expect(text).toContain('  disturbed pairs discarded: 3 (other-tasks 3)');
    expect(text).toMatch(/other 510 ms, re-warmed input, DISCARDED \(other-tasks\)/);
  });

  it('labels a CPU-time estimate as such', () => {
    const text = withEvidence(cpuTimeEstimate);
    expect(text).toContain('CPU-TIME ESTIMATE (host too busy for wall time): Speedup 2.450×');
    expect(text).not.toContain('  CPU-time speedup');
  });
});

describe('format-report sections, each alone', () => {
  const failure = (name: string, required = true) => ({
    group: 'edge',
    name,
    required,
    outcome: 'wrong-answer' as const,
    wallMs: 1,
    message: 'output differs from line 2',
    diff: [{ line: 2, expected: 'a 1', got: 'a 2' }],
  });

  it('testsSection names every failure, shows the first five diffs and lists the skipped', () => {
    const cases = [
      {
        group: 'edge',
        name: 'ok',
        required: true,
        outcome: 'passed' as const,
        wallMs: 1,
        diff: [],
        message: '',
      },
      ...['f1', 'f2', 'f3', 'f4', 'f5', 'f6'].map((n) => failure(n)),
      failure('soft', false),
      {
        group: 'public',
        name: 'big',
        required: true,
        outcome: 'skipped' as const,
        wallMs: 0,
        diff: [],
        message: 'not run',
      },
    ];
    const lines = testsSection({ ...result, stages: { ...result.stages, test: { cases } } });
    expect(lines[0]).toBe('');
    expect(lines[1]).toBe('Tests: 1/9 passed, 1 not run after a failure');
    expect(lines.filter((l) => l.startsWith('  FAILED edge/'))).toHaveLength(6);
    expect(lines).toContain('  advisory edge/soft: wrong-answer — output differs from line 2');
    expect(lines.filter((l) => l.startsWith('    line 2: expected'))).toHaveLength(5);
    expect(lines).toContain(
      '  (differences shown for the first 5 of 7 failures; all of them: --json)',
    );
    expect(lines.at(-1)).toBe('  not run after a failure: public/big');
  });

  it('testsSection says nothing when no test ran', () => {
    expect(testsSection({ ...result, stages: { ...result.stages, test: null } })).toEqual([]);
  });

  it('speedupSection gives the CPU-time speedup for the record when no speedup was given', () => {
    const measure = result.stages.measure!;
    const lines = speedupSection({
      ...result,
      stages: {
        ...result.stages,
        measure: { ...measure, estimate: null, cpuTimeEstimate: measure.estimate },
      },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ {2}CPU-time speedup 2\.500× .* — for the record only: the host was too busy, no speedup was given$/,
    );
  });
});
