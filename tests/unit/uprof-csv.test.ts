// AMD uProf on the windows-amd target: the report.csv parser on hand-written fixtures (no recorded
// uProf output exists here: tests/fixtures/uprof/ says where each layout comes from), hostile
// input, and the pure argv builders. Running uProf itself is untested (no Windows host).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { counterSchema } from '../../contracts';
import {
  findUprofCli,
  uprofCollectArgs,
  uprofCounters,
  uprofEventsFor,
  uprofReportArgs,
} from '../../runner/windows/uprof';
import { MAX_REPORT_BYTES, parseUprofReport } from '../../runner/windows/uprof-csv';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/uprof');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
const NAMES = [
  'task-clock',
  'cycles',
  'instructions',
  'branches',
  'branch-misses',
  'cache-references',
  'cache-misses',
  'L1-dcache-load-misses',
  'dTLB-load-misses',
];
const UNSUPPORTED = { value: null, unit: '', status: 'unsupported', runningPercent: null };
const counted = (value: number) => ({ value, unit: '', status: 'counted', runningPercent: null });

function allUnsupported(result: ReturnType<typeof parseUprofReport>) {
  expect(Object.keys(result.counters).sort()).toEqual([...NAMES].sort());
  for (const c of Object.values(result.counters)) expect(c).toEqual(UNSUPPORTED);
  expect(result.notes.length).toBeGreaterThan(0);
}

describe('uProf report.csv', () => {
  it('reads the program row: samples × interval, the rest unsupported', () => {
    const r = parseUprofReport(fixture('zen4-solution-hand-written.csv'), 'solution.exe', NAMES);
    expect(r.counters).toEqual({
      'task-clock': UNSUPPORTED,
      cycles: counted(11_520 * 250_000),
      instructions: counted(24_810 * 250_000),
      branches: counted(9_912 * 25_000),
      'branch-misses': counted(1_377 * 2_500),
      'cache-references': UNSUPPORTED,
      'cache-misses': UNSUPPORTED,
      'L1-dcache-load-misses': counted(2_050 * 25_000),
      'dTLB-load-misses': UNSUPPORTED,
    });
    for (const c of Object.values(r.counters)) counterSchema.parse(c);
    expect(r.notes.join()).toMatch(/sampled estimates/);
  });

  it('only reports requested counters', () => {
    const r = parseUprofReport(fixture('zen4-solution-hand-written.csv'), 'solution.exe', [
      'cycles',
    ]);
    expect(r.counters).toEqual({ cycles: counted(2_880_000_000) });
  });

  it('missing events and non-numeric cells stay unsupported; __proto__ is ignored', () => {
    const r = parseUprofReport(fixture('missing-events-hand-written.csv'), 'solution.exe', NAMES);
    expect(r.counters.cycles).toEqual(counted(81_200_000));
    expect(r.counters.instructions).toEqual(UNSUPPORTED);
    expect(r.counters.branches).toEqual(UNSUPPORTED);
    expect(Object.getPrototypeOf(r.counters)).toBe(Object.prototype);
    expect(r.notes.join()).toMatch(/RETIRED_INST: not a sample count/);
  });

  it('no row for the program, or two, is all unsupported', () => {
    allUnsupported(parseUprofReport(fixture('zen4-solution-hand-written.csv'), 'other.exe', NAMES));
    const doubled = `${fixture('zen4-solution-hand-written.csv').toString()}`.replace(
      'System,4,',
      'D:\\x\\solution.exe,5,',
    );
    const r = parseUprofReport(doubled, 'solution.exe', NAMES);
    allUnsupported(r);
    expect(r.notes.join()).toMatch(/ambiguous/);
  });

  it('garbage, truncated, binary and oversized input: all unsupported, no throw', () => {
    const full = fixture('zen4-solution-hand-written.csv').toString();
    const inputs: (string | Buffer)[] = [
      '',
      'not,a,report\n1,2,3',
      '"unterminated,quote\n',
      full.slice(0, full.indexOf('PROCESS,PID')),
      full.slice(0, full.indexOf('Monitored Events')),
      Buffer.from([0, 255, 254, 1, 2, 3, 0x22, 0x0a]),
      'x'.repeat(MAX_REPORT_BYTES + 1),
      `${','.repeat(1000)}\n`,
      '\n'.repeat(60_000),
    ];
    for (const input of inputs) allUnsupported(parseUprofReport(input, 'solution.exe', NAMES));
  });

  it('a truncated last row is not counted', () => {
    const full = fixture('zen4-solution-hand-written.csv').toString();
    const cut = full.slice(0, full.indexOf('solution.exe,4242,') + 'solution.exe,4242,"11'.length);
    allUnsupported(parseUprofReport(cut, 'solution.exe', NAMES));
  });
});

describe('uProf wiring (pure parts)', () => {
  it('finds the CLI: configured, else PATH, else the installer default; never off Windows', () => {
    const has =
      (...paths: string[]) =>
      (p: string) =>
        paths.includes(p);
    expect(findUprofCli({ platform: 'linux', configured: 'C:\\u\\AMDuProfCLI.exe' })).toBeNull();
    expect(
      findUprofCli({
        platform: 'win32',
        configured: 'D:\\uprof\\AMDuProfCLI.exe',
        exists: has('D:\\uprof\\AMDuProfCLI.exe'),
      }),
    ).toBe('D:\\uprof\\AMDuProfCLI.exe');
    expect(
      findUprofCli({ platform: 'win32', configured: 'D:\\nope.exe', exists: has() }),
    ).toBeNull();
    expect(
      findUprofCli({
        platform: 'win32',
        searchPath: 'C:\\Windows;;E:\\AMD\\bin',
        exists: has('E:\\AMD\\bin\\AMDuProfCLI.exe'),
      }),
    ).toBe('E:\\AMD\\bin\\AMDuProfCLI.exe');
    expect(
      findUprofCli({
        platform: 'win32',
        exists: has('C:\\Program Files\\AMD\\AMDuProf\\bin\\AMDuProfCLI.exe'),
      }),
    ).toBe('C:\\Program Files\\AMD\\AMDuProf\\bin\\AMDuProfCLI.exe');
  });

  it('builds collect and report argv', () => {
    const events = uprofEventsFor(['task-clock', 'cycles', 'branch-misses']);
    expect(events).toEqual(['CYCLES_NOT_IN_HALT', 'RETIRED_BR_INST_MISP']);
    expect(
      uprofCollectArgs(events, 100_000, 'C:\\run\\uprof', ['job-helper.exe', '--', 'sol.exe']),
    ).toEqual([
      'collect',
      '-e',
      'event=CYCLES_NOT_IN_HALT,interval=100000,user=1,os=1',
      '-e',
      'event=RETIRED_BR_INST_MISP,interval=100000,user=1,os=1',
      '-o',
      'C:\\run\\uprof',
      '--',
      'job-helper.exe',
      '--',
      'sol.exe',
    ]);
    expect(() => uprofCollectArgs(events, 0, 'o', ['x'])).toThrow(RangeError);
    expect(() => uprofCollectArgs(events, 10, 'o', [])).toThrow(RangeError);
    expect(uprofReportArgs('C:\\run\\uprof\\AMDuProf-sol')).toEqual([
      'report',
      '-i',
      'C:\\run\\uprof\\AMDuProf-sol',
    ]);
  });

  it('without uProf (or off Windows) every counter is unsupported', async () => {
    const result = await uprofCounters(null, NAMES);
    for (const c of Object.values(result)) expect(c).toEqual(UNSUPPORTED);
    const here = await uprofCounters({ cli: 'AMDuProfCLI.exe' }, ['cycles'], {
      outputDir: '/nonexistent',
      program: 'sol.exe',
    });
    expect(here).toEqual({ cycles: UNSUPPORTED });
  });
});
