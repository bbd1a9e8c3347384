// Derived figures (IPC, miss rates, frequency, utilization) and the baseline-vs-solution counter
// table, with hand-computed expectations on the perf fixtures.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  counterComparisonSchema,
  type Counter,
  type ProcessStats,
  type Run,
} from '../../contracts';
import {
  DERIVED_METRICS,
  compareCounters,
  deriveMetrics,
} from '../../runner/measure/derived-metrics';
import { COUNTER_EVENTS, parsePerfStatCsv } from '../../runner/measure/perf-stat';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'perf');
const counters = (name: string) =>
  parsePerfStatCsv(readFileSync(path.join(FIXTURES, name), 'utf8'));

function stats(wallMs: number): ProcessStats {
  return {
    wallMs,
    userMs: wallMs,
    sysMs: 0,
    maxRssBytes: 0,
    minorFaults: 0,
    majorFaults: 0,
    voluntaryContextSwitches: 0,
    involuntaryContextSwitches: 0,
    cpuUtilization: 1,
  };
}

const c = (value: number, unit = '', runningPercent: number | null = 100): Counter => ({
  value,
  unit,
  status: 'counted',
  runningPercent,
});
const UNSUPPORTED: Counter = { value: null, unit: '', status: 'unsupported', runningPercent: null };
const NOT_COUNTED: Counter = { value: null, unit: '', status: 'not-counted', runningPercent: 0 };

describe('deriveMetrics', () => {
  it('computes every figure of an Intel hardware run (hand-computed)', () => {
    const d = deriveMetrics(counters('intel-skylake-hardware.csv'), stats(1015.0));
    expect(Object.keys(d)).toEqual(DERIVED_METRICS.map((m) => m.name));
    expect(d.ipc).toMatchObject({ unit: 'insn/cycle', status: 'counted', runningPercent: 100 });
    expect(d.ipc!.value).toBeCloseTo(6018518517 / 4012345678, 12);
    expect(d.ipc!.value).toBe(1.5);
    expect(d['branch-miss-rate']!.value).toBeCloseTo(1.99999999502, 10);
    expect(d['branch-miss-rate']).toMatchObject({ unit: '%', runningPercent: 50 });
    expect(d['cache-miss-rate']!.value).toBeCloseTo(25, 12);
    expect(d['l1d-miss-rate']!.value).toBeCloseTo(5, 12);
    expect(d['l1d-miss-rate']!.runningPercent).toBe(49);
    expect(d['dtlb-miss-rate']!.value).toBeCloseTo(0.05, 12);
    expect(d.frequency).toMatchObject({ unit: 'GHz', status: 'counted' });
    expect(d.frequency!.value).toBeCloseTo(3.96343686706, 10);
    expect(d['cpu-utilization']).toMatchObject({ unit: '%', status: 'counted' });
    expect(d['cpu-utilization']!.value).toBeCloseTo(99.7379310345, 9);
  });

  it('on this VM: only CPU utilization, every hardware figure unsupported (null, not 0)', () => {
    const d = deriveMetrics(counters('vm-all-events.csv'), stats(50));
    expect(d['cpu-utilization']!.value).toBeCloseTo((100 * 45.34) / 50, 12);
    for (const name of ['ipc', 'branch-miss-rate', 'cache-miss-rate', 'frequency'])
      expect(d[name]).toMatchObject({ value: null, status: 'unsupported', runningPercent: null });
  });

  it('keeps multiplexing and not-counted inputs visible (hand-edited VM output)', () => {
    const d = deriveMetrics(counters('vm-multiplexed-hand-edited.csv'), stats(50));
    expect(d['cache-miss-rate']).toMatchObject({ status: 'counted', runningPercent: 50 });
    expect(d['cache-miss-rate']!.value).toBeCloseTo(16.6666666667, 9);
    // branch-misses unsupported, branches not counted: unsupported wins.
    expect(d['branch-miss-rate']).toMatchObject({ value: null, status: 'unsupported' });
  });

  it('is not-counted when an input is missing, not counted, or a denominator is 0', () => {
    expect(deriveMetrics({}, null).ipc).toEqual({
      value: null,
      unit: 'insn/cycle',
      status: 'not-counted',
      runningPercent: 0,
    });
    const d = deriveMetrics(
      { instructions: c(10), cycles: NOT_COUNTED, branches: c(0), 'branch-misses': c(0) },
      null,
    );
    expect(d.ipc).toMatchObject({ value: null, status: 'not-counted' });
    expect(d['branch-miss-rate']).toMatchObject({ value: null, status: 'not-counted' });
    expect(deriveMetrics({ 'task-clock': c(5, 'msec') }, null)['cpu-utilization']).toMatchObject({
      value: null,
      status: 'not-counted',
    });
  });

  it('reads task-clock in other units as milliseconds', () => {
    const d = deriveMetrics({ 'task-clock': c(2e6, 'nsec'), cycles: c(6e6) }, stats(4));
    expect(d.frequency!.value).toBeCloseTo(3, 12);
    expect(d['cpu-utilization']!.value).toBeCloseTo(50, 12);
  });
});

function run(
  side: Run['side'],
  counterValues: Record<string, Counter>,
  wallMs = 1000,
  kind: Run['kind'] = 'timed',
): Run {
  return {
    side,
    kind,
    pair: kind === 'timed' ? 0 : null,
    stats: stats(wallMs),
    outputBytes: 0,
    outputSha256: '',
    correct: true,
    exitCode: 0,
    signal: null,
    counters: counterValues,
  };
}

describe('compareCounters', () => {
  it('takes medians of the timed runs, ratio solution / baseline, counters then derived', () => {
    const hw = counters('intel-skylake-hardware.csv');
    const scaled = (k: number): Record<string, Counter> => ({
      ...hw,
      cycles: c(hw.cycles!.value! * k),
      instructions: c(hw.instructions!.value! * k),
    });
    const baseline = [
      run('baseline', scaled(1.0), 1015),
      run('baseline', scaled(1.2), 1015),
      run('baseline', scaled(0.9), 1015),
      run('baseline', scaled(50), 1015, 'warmup'),
    ];
    const solution = [run('solution', scaled(0.5), 600), run('solution', scaled(0.4), 500)];
    const rows = compareCounters(baseline, solution);
    for (const row of rows) expect(counterComparisonSchema.parse(row)).toEqual(row);
    expect(rows.map((r) => r.name)).toEqual([
      ...COUNTER_EVENTS,
      ...DERIVED_METRICS.map((m) => m.name),
    ]);
    expect(rows.map((r) => r.kind)).toEqual([
      ...COUNTER_EVENTS.map(() => 'counter'),
      ...DERIVED_METRICS.map(() => 'derived'),
    ]);
    const cycles = rows.find((r) => r.name === 'cycles')!;
    expect(cycles.baseline).toBeCloseTo(4012345678, 3);
    expect(cycles.solution).toBeCloseTo(4012345678 * 0.45, 3);
    expect(cycles.ratio).toBeCloseTo(0.45, 12);
    expect(cycles).toMatchObject({ unit: '', status: 'counted', runningPercent: 100 });
    const taskClock = rows.find((r) => r.name === 'task-clock')!;
    expect(taskClock).toMatchObject({
      unit: 'msec',
      baseline: 1012.34,
      solution: 1012.34,
      ratio: 1,
    });
    expect(rows.find((r) => r.name === 'branches')!.runningPercent).toBe(50);
    // IPC is the same in every run; utilization median: 1012.34 / 1015 vs median(1012.34/600, 1012.34/500).
    const ipc = rows.find((r) => r.name === 'ipc')!;
    expect(ipc.ratio).toBeCloseTo(1, 12);
    const util = rows.find((r) => r.name === 'cpu-utilization')!;
    expect(util.baseline).toBeCloseTo(99.7379310345, 9);
    expect(util.solution).toBeCloseTo((100 * 1012.34 * (1 / 600 + 1 / 500)) / 2, 9);
    expect(rows.find((r) => r.name === 'l1d-miss-rate')!.runningPercent).toBe(49);
  });

  it('is unsupported when either side is, with no figures', () => {
    const rows = compareCounters(
      [run('baseline', { cycles: c(100), 'task-clock': c(1, 'msec') })],
      [run('solution', { cycles: UNSUPPORTED, 'task-clock': c(1, 'msec') })],
    );
    expect(rows.find((r) => r.name === 'cycles')).toEqual({
      name: 'cycles',
      unit: '',
      kind: 'counter',
      status: 'unsupported',
      baseline: null,
      solution: null,
      ratio: null,
      runningPercent: 100,
    });
    expect(rows.find((r) => r.name === 'frequency')).toMatchObject({
      status: 'unsupported',
      baseline: null,
      solution: null,
    });
  });

  it('on this VM: software counters compared, hardware ones and their figures unsupported', () => {
    const vm = counters('vm-all-events.csv');
    const rows = compareCounters([run('baseline', vm, 50)], [run('solution', vm, 50)]);
    expect(rows.find((r) => r.name === 'page-faults')).toMatchObject({
      status: 'counted',
      baseline: 56,
      solution: 56,
      ratio: 1,
    });
    for (const name of ['instructions', 'ipc', 'dtlb-miss-rate'])
      expect(rows.find((r) => r.name === name)?.status).toBe('unsupported');
  });

  it('uses the runs that counted, says not-counted when a side has none, no ratio over 0', () => {
    const rows = compareCounters(
      [
        run('baseline', { 'context-switches': c(0), branches: c(10), 'cpu_core/cycles/': c(7) }),
        run('baseline', { 'context-switches': c(0), branches: NOT_COUNTED }),
        run('baseline', {}),
      ],
      [run('solution', { 'context-switches': c(4), branches: NOT_COUNTED })],
    );
    expect(rows.slice(0, 3).map((r) => r.name)).toEqual([
      'branches',
      'context-switches',
      'cpu_core/cycles/',
    ]);
    expect(rows.find((r) => r.name === 'context-switches')).toMatchObject({
      status: 'counted',
      baseline: 0,
      solution: 4,
      ratio: null,
    });
    expect(rows.find((r) => r.name === 'branches')).toMatchObject({
      status: 'not-counted',
      baseline: 10,
      solution: null,
      ratio: null,
    });
    expect(rows.find((r) => r.name === 'cpu_core/cycles/')).toMatchObject({
      status: 'not-counted',
      baseline: 7,
      solution: null,
    });
  });

  it('is empty when perf recorded nothing', () => {
    expect(compareCounters([run('baseline', {})], [run('solution', {})])).toEqual([]);
    expect(compareCounters([], [])).toEqual([]);
  });
});
