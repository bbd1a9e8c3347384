import { describe, expect, it } from 'vitest';
import { parsePerfStatCsv, perfStatArgs } from '../../runner/measure/perf-stat';

// Recorded on this development VM (perf 6.1, no hardware PMU) with
// `perf stat -x, -e task-clock,context-switches,cycles,instructions,page-faults true`.
const RECORDED_VM = `# started on Sun Nov 29 23:40:00 2026

20.75,msec,task-clock,753692,100.00,0.272,CPUs utilized
0,,context-switches,753692,100.00,0.000,/sec
<not supported>,,cycles,0,100.00,,
<not supported>,,instructions,0,100.00,,
49,,page-faults,753692,100.00,65.013,K/sec
`;

describe('parsePerfStatCsv', () => {
  it('reads counted values with their units and running share', () => {
    const c = parsePerfStatCsv(RECORDED_VM);
    expect(c['task-clock']).toEqual({
      value: 20.75,
      unit: 'msec',
      status: 'counted',
      runningPercent: 100,
    });
    expect(c['page-faults']).toEqual({
      value: 49,
      unit: '',
      status: 'counted',
      runningPercent: 100,
    });
    expect(c['context-switches']?.value).toBe(0);
  });

  it('reports a counter the host cannot count as unsupported, never zero', () => {
    const c = parsePerfStatCsv(RECORDED_VM);
    expect(c.cycles).toEqual({
      value: null,
      unit: '',
      status: 'unsupported',
      runningPercent: null,
    });
    expect(c.instructions?.status).toBe('unsupported');
  });

  it('distinguishes not counted and multiplexed counters', () => {
    const c = parsePerfStatCsv(
      '<not counted>,,branches,0,0.00,,\n1200000,,cache-misses,500,42.50,,\n',
    );
    expect(c.branches).toEqual({ value: null, unit: '', status: 'not-counted', runningPercent: 0 });
    expect(c['cache-misses']).toEqual({
      value: 1200000,
      unit: '',
      status: 'counted',
      runningPercent: 42.5,
    });
  });

  it('names events without their privilege modifiers', () => {
    const c = parsePerfStatCsv(
      '92.70,msec,task-clock:u,92700000,100.00,0.9,CPUs utilized\n3637,,page-faults:u,1,100.00,,\n',
    );
    expect(Object.keys(c)).toEqual(['task-clock', 'page-faults']);
  });

  it('ignores garbage lines', () => {
    expect(parsePerfStatCsv('hello\n,,\nabc,x,task-clock\n')).toEqual({});
  });
});

describe('perfStatArgs', () => {
  it('wraps the command after --', () => {
    expect(
      perfStatArgs('/usr/bin/perf', ['task-clock'], '/w/p.csv', ['/judge/program', 'in']),
    ).toEqual([
      '/usr/bin/perf',
      'stat',
      '-x',
      ',',
      '--no-big-num',
      '-o',
      '/w/p.csv',
      '-e',
      'task-clock',
      '--',
      '/judge/program',
      'in',
    ]);
  });
});
