// perf stat output parsing, on outputs recorded on this VM and hand-written ones in perf 6.x's format.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { counterSchema } from '../../contracts';
import {
  COUNTER_EVENTS,
  HARDWARE_EVENTS,
  SOFTWARE_EVENTS,
  normalizeEventName,
  parsePerfStatCsv,
  parsePerfStatCsvOutput,
  parsePerfStatJsonOutput,
  parsePerfStatOutput,
  perfStatArgs,
} from '../../runner/measure/perf-stat';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'perf');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

const counted = (value: number, unit = '', runningPercent: number | null = 100) => ({
  value,
  unit,
  status: 'counted',
  runningPercent,
});
const UNSUPPORTED = { value: null, unit: '', status: 'unsupported', runningPercent: null };

describe('COUNTER_EVENTS', () => {
  it('holds every software and hardware event once, task-clock first', () => {
    expect(new Set(COUNTER_EVENTS)).toEqual(new Set([...SOFTWARE_EVENTS, ...HARDWARE_EVENTS]));
    expect(COUNTER_EVENTS).toHaveLength(SOFTWARE_EVENTS.length + HARDWARE_EVENTS.length);
    expect(COUNTER_EVENTS[0]).toBe('task-clock');
  });
});

describe('parsePerfStatCsv on this VM (recorded)', () => {
  it('reads the software counters with units and running share, hardware ones unsupported', () => {
    const c = parsePerfStatCsv(fixture('vm-all-events.csv'));
    expect(Object.keys(c)).toEqual([...COUNTER_EVENTS]);
    expect(c['task-clock']).toEqual(counted(45.34, 'msec'));
    expect(c['page-faults']).toEqual(counted(56));
    expect(c['minor-faults']).toEqual(counted(56));
    for (const name of ['major-faults', 'context-switches', 'cpu-migrations'])
      expect(c[name]).toEqual(counted(0));
    for (const name of HARDWARE_EVENTS) expect(c[name]).toEqual(UNSUPPORTED);
    for (const counter of Object.values(c)) expect(counterSchema.parse(counter)).toEqual(counter);
  });

  it('parses a crashed run (SIGSEGV) without throwing', () => {
    const c = parsePerfStatCsv(fixture('vm-crash-sigsegv.csv'));
    expect(c['task-clock']).toEqual(counted(0.93, 'msec'));
    expect(c['page-faults']?.value).toBe(51);
    expect(c['minor-faults']?.value).toBe(50);
    expect(c.cycles?.status).toBe('unsupported');
  });

  it('reads perf default events when a metric group is unknown', () => {
    const c = parsePerfStatCsv(fixture('vm-topdown-unsupported.csv'));
    expect(c['task-clock']?.value).toBe(50.43);
    expect(c.cycles).toEqual(UNSUPPORTED);
    expect(Object.keys(c)).toHaveLength(8);
  });

  it('keeps not counted and multiplexed counters apart (hand-edited copy)', () => {
    const c = parsePerfStatCsv(fixture('vm-multiplexed-hand-edited.csv'));
    expect(c.branches).toEqual({ value: null, unit: '', status: 'not-counted', runningPercent: 0 });
    expect(c['cache-references']).toEqual(counted(1843200, '', 50));
    expect(c['cache-misses']).toEqual(counted(307200, '', 50));
    expect(c.cycles).toEqual(UNSUPPORTED);
  });

  it('keeps the metrics perf computed, attached to their event', () => {
    const out = parsePerfStatCsvOutput(fixture('vm-all-events.csv'));
    expect(out.metrics[0]).toEqual({
      name: 'CPUs utilized',
      unit: '',
      value: 0.819,
      event: 'task-clock',
    });
    expect(out.metrics.find((m) => m.event === 'page-faults')).toEqual({
      name: 'K/sec',
      unit: '',
      value: 1.235,
      event: 'page-faults',
    });
  });
});

describe('parsePerfStatJsonOutput on this VM (recorded, perf 6.1 -j)', () => {
  it('reads the same counters as the CSV', () => {
    const out = parsePerfStatJsonOutput(fixture('vm-all-events.jsonl'));
    expect(out.format).toBe('json');
    expect(Object.keys(out.counters)).toEqual([...COUNTER_EVENTS]);
    expect(out.counters['task-clock']).toEqual(counted(49.428911, 'msec'));
    expect(out.counters['page-faults']).toEqual(counted(56));
    for (const name of HARDWARE_EVENTS) expect(out.counters[name]).toEqual(UNSUPPORTED);
    // Unsupported counters carry an empty metric, which is no metric.
    expect(out.metrics.map((m) => m.event)).not.toContain('cycles');
    expect(out.metrics[0]?.value).toBeCloseTo(0.756379, 9);
  });

  it('is picked by parsePerfStatOutput from the content', () => {
    expect(parsePerfStatOutput(fixture('vm-all-events.jsonl')).format).toBe('json');
    expect(parsePerfStatOutput(fixture('vm-all-events.csv')).format).toBe('csv');
  });

  it('reads perf ≥ 6.2 string metric values and 6.1 brace-less continuation metrics', () => {
    const out = parsePerfStatJsonOutput(
      [
        '{"counter-value" : "100.000000", "unit" : "", "event" : "ex_ret_ops:u", "event-runtime" : 10, "pcnt-running" : 50.00, "metric-value" : "41.400000", "metric-unit" : "%  retiring"}',
        '"metric-value" : 7.1, "metric-unit" : "%  bad_speculation"}',
        '{"%  tma_retiring" : "36.6", "%  tma_frontend_bound" : "12.4"}',
        'not json {',
      ].join('\n'),
    );
    expect(out.counters.ex_ret_ops).toEqual(counted(100, '', 50));
    expect(out.metrics).toEqual([
      { name: 'retiring', unit: '%', value: 41.4, event: 'ex_ret_ops' },
      { name: 'bad_speculation', unit: '%', value: 7.1, event: 'ex_ret_ops' },
      { name: 'tma_retiring', unit: '%', value: 36.6, event: null },
      { name: 'tma_frontend_bound', unit: '%', value: 12.4, event: null },
    ]);
  });
});

describe('parsePerfStatCsv on hand-written perf 6.x outputs', () => {
  it('reads an Intel hardware run with multiplexed counters', () => {
    const c = parsePerfStatCsv(fixture('intel-skylake-hardware.csv'));
    expect(Object.keys(c)).toEqual([...COUNTER_EVENTS]);
    expect(c['task-clock']).toEqual(counted(1012.34, 'msec'));
    expect(c.cycles).toEqual(counted(4012345678));
    expect(c.instructions).toEqual(counted(6018518517));
    expect(c.branches).toEqual(counted(1203703703, '', 50));
    expect(c['L1-dcache-load-misses']).toEqual(counted(90000000, '', 49));
    expect(c['dTLB-load-misses']).toEqual(counted(900000, '', 50));
    expect(c['context-switches']).toEqual(counted(3));
  });

  it('keeps hybrid copies distinct and merges them under the plain name', () => {
    const c = parsePerfStatCsv(fixture('intel-hybrid-alderlake.csv'));
    expect(c['cpu_core/cycles/']).toEqual(counted(3250000000));
    expect(c['cpu_atom/cycles/']).toEqual({
      value: null,
      unit: '',
      status: 'not-counted',
      runningPercent: 0,
    });
    expect(c.cycles).toEqual(counted(3250000000));
    expect(c.instructions).toEqual(counted(9750000000));
    expect(c['branch-misses']).toEqual(counted(9750000));
    expect(c['task-clock']).toEqual(counted(812.5, 'msec'));
  });

  it('sums hybrid parts that both counted, with the lower running share', () => {
    const c = parsePerfStatCsv(
      '600,,cpu_core/cycles/u,6,100.00,,\n400,,cpu_atom/cycles/u,4,80.00,,\n' +
        '<not supported>,,cpu_core/ref-cycles:u/,0,100.00,,\n<not supported>,,cpu_atom/ref-cycles:u/,0,100.00,,\n',
    );
    expect(c.cycles).toEqual(counted(1000, '', 80));
    expect(c['ref-cycles']).toEqual(UNSUPPORTED);
  });

  it('reads metrics from counter lines and from both continuation layouts', () => {
    const out = parsePerfStatCsvOutput(fixture('intel-skylake-topdownl1.csv'));
    expect(out.counters['UOPS_ISSUED.ANY']).toEqual(counted(4050200000));
    expect(out.metrics).toEqual([
      { name: 'tma_frontend_bound', unit: '%', value: 12.4, event: 'IDQ_UOPS_NOT_DELIVERED.CORE' },
      { name: 'tma_backend_bound', unit: '%', value: 45.5, event: 'UOPS_ISSUED.ANY' },
      { name: 'tma_bad_speculation', unit: '%', value: 5.6, event: 'UOPS_ISSUED.ANY' },
      { name: 'tma_retiring', unit: '%', value: 36.6, event: 'UOPS_RETIRED.RETIRE_SLOTS' },
    ]);
    // perf 6.1 pads continuation lines with one empty column fewer.
    const old = parsePerfStatCsvOutput('5,,ev,1,100.00,1.0,%  a\n,,,,2.0,%  b\n,,,,,,\n');
    expect(old.metrics.map((m) => [m.name, m.value, m.event])).toEqual([
      ['a', 1, 'ev'],
      ['b', 2, 'ev'],
    ]);
  });

  it('keeps a metric whose value perf could not print (negative in CSV) as null', () => {
    const out = parsePerfStatCsvOutput('5,,ev,1,100.00,,%  tma_backend_bound\n');
    expect(out.metrics).toEqual([
      { name: 'tma_backend_bound', unit: '%', value: null, event: 'ev' },
    ]);
  });

  it('reads --metric-only output by column', () => {
    const out = parsePerfStatCsvOutput(fixture('intel-skylake-topdownl1-metric-only.csv'));
    expect(out.counters).toEqual({});
    expect(out.metrics.map((m) => [m.name, m.unit, m.value])).toEqual([
      ['tma_backend_bound', '%', 45.5],
      ['tma_bad_speculation', '%', 5.6],
      ['tma_frontend_bound', '%', 12.4],
      ['tma_retiring', '%', 36.6],
    ]);
    const withPrefix = parsePerfStatCsvOutput('time,retiring,bad speculation,\n1.000,30.0,4.0,\n');
    expect(withPrefix.metrics.map((m) => [m.name, m.value])).toEqual([
      ['retiring', 30],
      ['bad speculation', 4],
    ]);
  });

  it('handles raw events with commas, cgroup and variance columns', () => {
    const c = parsePerfStatCsv(
      [
        '123,,cpu/event=0x3c,umask=0x0/u,10,100.00,,',
        '77,,instructions:u,/user.slice,10,90.00,,',
        '88,,branches:u,1.25%,10,70.00,,',
      ].join('\n'),
    );
    expect(c['cpu/event=0x3c,umask=0x0/']).toEqual(counted(123));
    expect(c.instructions).toEqual(counted(77, '', 90));
    expect(c.branches).toEqual(counted(88, '', 70));
  });

  it('ignores comments, blank lines and garbage', () => {
    expect(parsePerfStatCsv('# started on x\n\nhello\n,,\nabc,x,task-clock\n')).toEqual({});
    expect(parsePerfStatCsv('')).toEqual({});
    expect(parsePerfStatCsv('12,msec,\n')).toEqual({});
    const hostile = parsePerfStatCsv('1,,__proto__,1,100.00,,\n2,,cycles,1,100.00,,\n');
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
    expect(Object.keys(hostile)).toEqual(['cycles']);
  });

  it('lets a later line for the same event win', () => {
    expect(parsePerfStatCsv('1,,cycles,1,100.00,,\n2,,cycles:u,1,100.00,,\n').cycles?.value).toBe(
      2,
    );
  });
});

describe('normalizeEventName', () => {
  it('drops privilege modifiers and names hybrid copies', () => {
    expect(normalizeEventName('task-clock:u')).toEqual({ key: 'task-clock', hybridOf: null });
    expect(normalizeEventName('cycles:ukpp')).toEqual({ key: 'cycles', hybridOf: null });
    expect(normalizeEventName('cpu_core/cycles:u/')).toEqual({
      key: 'cpu_core/cycles/',
      hybridOf: 'cycles',
    });
    expect(normalizeEventName('cpu_atom/branch-misses/u')).toEqual({
      key: 'cpu_atom/branch-misses/',
      hybridOf: 'branch-misses',
    });
    expect(normalizeEventName('cycles [cpu_core]')).toEqual({
      key: 'cpu_core/cycles/',
      hybridOf: 'cycles',
    });
    expect(normalizeEventName('cpu/event=0x3c/k')).toEqual({
      key: 'cpu/event=0x3c/',
      hybridOf: null,
    });
    expect(normalizeEventName('sched:sched_switch')).toEqual({
      key: 'sched:sched_switch',
      hybridOf: null,
    });
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
