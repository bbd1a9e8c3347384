// The sandbox's counter readings as Counters: scaling, units, and never a 0 for what was not
// counted; the names the TS side accepts are exactly the helper's table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COUNTER_NAMES, counterSchema } from '../../contracts';
import { COUNTER_EVENTS } from '../../runner/measure/perf-stat';
import { SANDBOX_COUNTERS, toCounter, toCounters } from '../../runner/sandbox/counters';
import { normalizeRequest } from '../../runner/sandbox/request';
import { parseHelperReport } from '../../runner/sandbox/run-helper';

const reading = (name: string, value: number, enabled: number, running: number, errno = 0) => ({
  name,
  errno,
  value,
  enabled,
  running,
});

describe('toCounter', () => {
  it('gives task-clock in milliseconds and counts as integers, always on = 100%', () => {
    expect(
      toCounter('task-clock', reading('task-clock', 12_345_678, 12_400_000, 12_400_000)),
    ).toEqual({ value: 12.345678, unit: 'msec', status: 'counted', runningPercent: 100 });
    expect(toCounter('page-faults', reading('page-faults', 2100, 5, 5))).toEqual({
      value: 2100,
      unit: '',
      status: 'counted',
      runningPercent: 100,
    });
  });

  it('scales a multiplexed counter by enabled/running, as perf stat does', () => {
    const c = toCounter('cycles', reading('cycles', 1000, 400, 100));
    expect(c).toEqual({ value: 4000, unit: '', status: 'counted', runningPercent: 25 });
    counterSchema.parse(c);
  });

  it('is unsupported when the kernel refused it, whatever the numbers', () => {
    for (const errno of [2, 13, 95, 22, 1, 38])
      expect(toCounter('cycles', reading('cycles', 0, 0, 0, errno))).toEqual({
        value: null,
        unit: '',
        status: 'unsupported',
        runningPercent: null,
      });
  });

  it('is not counted when never enabled, never scheduled, or missing from the report', () => {
    const notCounted = { value: null, unit: '', status: 'not-counted', runningPercent: 0 };
    expect(toCounter('instructions', reading('instructions', 0, 0, 0))).toEqual(notCounted);
    expect(toCounter('instructions', reading('instructions', 0, 500, 0))).toEqual(notCounted);
    expect(toCounter('instructions', undefined)).toEqual(notCounted);
    expect(toCounter('task-clock', undefined)).toMatchObject({ unit: 'msec', value: null });
  });

  it('answers for exactly the requested names', () => {
    const out = toCounters(
      ['task-clock', 'cycles'],
      [reading('cycles', 0, 0, 0, 2), reading('page-faults', 3, 1, 1)],
    );
    expect(Object.keys(out)).toEqual(['task-clock', 'cycles']);
    expect(out.cycles?.status).toBe('unsupported');
    expect(out['task-clock']?.status).toBe('not-counted');
  });
});

describe('the counter names', () => {
  it("are the catalog's (contracts/counters.ts), exactly the C helper's table", () => {
    const source = readFileSync(
      new URL('../../runner/sandbox/sandbox-helper.c', import.meta.url),
      'utf8',
    );
    const table = source.slice(
      source.indexOf('COUNTER_DEFS[] = {'),
      source.indexOf('#define NUM_COUNTER_DEFS'),
    );
    const names = [...table.matchAll(/\{"([^"]+)", PERF_TYPE_/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(10);
    expect(names.sort()).toEqual([...COUNTER_NAMES].sort());
    expect(SANDBOX_COUNTERS).toEqual(COUNTER_NAMES);
    expect(COUNTER_EVENTS).toEqual(COUNTER_NAMES);
  });

  it('are validated and deduplicated in a request', () => {
    const base = {
      command: 'true',
      args: [],
      workDir: '/tmp/x',
      stdout: 'capture' as const,
      limits: { wallTimeMs: 1, memoryBytes: 1, processes: 1, outputBytes: 1, fileBytes: 1 },
    };
    expect(normalizeRequest(base).counters).toEqual([]);
    expect(
      normalizeRequest({ ...base, counters: ['cycles', 'task-clock', 'cycles'] }).counters,
    ).toEqual(['cycles', 'task-clock']);
    expect(() => normalizeRequest({ ...base, counters: ['__proto__'] })).toThrow(TypeError);
  });
});

describe('parseHelperReport', () => {
  const base =
    '{"exited":true,"exitCode":0,"termSignal":0,"statusFromInit":true,"execStarted":true,' +
    '"killed":null,"wallNs":1,"setupNs":1,"userUs":1,"sysUs":1,"maxRssKb":1,"minorFaults":1,' +
    '"majorFaults":0,"voluntaryCtxSwitches":1,"involuntaryCtxSwitches":1';

  it('reads the counters, and a count past 2^53 does not void the report', () => {
    const report = parseHelperReport(
      `${base},"counters":[{"name":"cycles","errno":0,"value":18446744073709551615,"enabled":5,"running":5}]}\n`,
    );
    expect(report?.counters[0]?.value).toBeGreaterThan(2 ** 53);
  });

  it('takes a report without counters as having none', () => {
    expect(parseHelperReport(`${base}}`)?.counters).toEqual([]);
  });
});
