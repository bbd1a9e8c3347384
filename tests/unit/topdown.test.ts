// Top-Down level 1 from perf's metric groups: Intel TopdownL1 and AMD PipelineL1 fixtures in perf
// 6.x's format, and this VM's real "no such group" output.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { topdownSchema } from '../../contracts';
import {
  parseTopdown,
  topdownArgs,
  topdownGroupFor,
  type TopdownReading,
} from '../../runner/measure/topdown';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'perf');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

function reading(text: string, source: string): TopdownReading {
  const parsed = parseTopdown(text, source);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.reading;
}

function sum(r: TopdownReading): number {
  const t = r.topdown;
  return t.retiring + t.badSpeculation + t.frontendBound + t.backendBound;
}

// Intel (skl-metrics.json names), printed to one decimal: 36.6, 5.6, 12.4, 45.5 (sum 100.1).
const INTEL_RAW = {
  retiring: 0.366,
  badSpeculation: 0.056,
  frontendBound: 0.124,
  backendBound: 0.455,
};
// AMD Zen 4 (pipeline.json): 41.4, 7.1, 13.5, 37.2 and smt_contention 0.8 (sum of the four 99.2).
const AMD_RAW = {
  retiring: 0.414,
  badSpeculation: 0.071,
  frontendBound: 0.135,
  backendBound: 0.372,
};

function expectShares(r: TopdownReading, raw: typeof INTEL_RAW, rawSum: number) {
  for (const [k, v] of Object.entries(raw)) {
    expect(r.raw[k as keyof typeof raw]).toBeCloseTo(v, 12);
    expect(r.topdown[k as keyof typeof raw]).toBeCloseTo(v / rawSum, 12);
  }
  expect(r.rawSum).toBeCloseTo(rawSum, 12);
  expect(Math.abs(sum(r) - 1)).toBeLessThan(1e-9);
  expect(topdownSchema.parse(r.topdown)).toEqual(r.topdown);
}

describe('parseTopdown', () => {
  it('reads Intel TopdownL1 (tma_* percentages) and normalizes to 1', () => {
    const r = reading(fixture('intel-skylake-topdownl1.csv'), 'TopdownL1');
    expect(r.topdown.source).toBe('TopdownL1');
    expectShares(r, INTEL_RAW, 1.001);
    // Hand-computed: 0.366 / 1.001 etc.
    expect(r.topdown.retiring).toBeCloseTo(0.365634365634, 10);
    expect(r.topdown.backendBound).toBeCloseTo(0.454545454545, 10);
    expect(r.extra).toEqual({});
    expect(r.runningPercent).toBe(100);
  });

  it('reads the same figures from --metric-only output', () => {
    const r = reading(fixture('intel-skylake-topdownl1-metric-only.csv'), 'TopdownL1');
    expectShares(r, INTEL_RAW, 1.001);
    expect(r.runningPercent).toBeNull();
  });

  it('reads AMD Zen 4 PipelineL1, leaving smt_contention out of the four', () => {
    const r = reading(fixture('amd-zen4-pipelinel1.csv'), 'PipelineL1');
    expectShares(r, AMD_RAW, 0.992);
    expect(r.topdown.retiring).toBeCloseTo(0.417338709677, 10);
    expect(r.topdown.backendBound).toBeCloseTo(0.375, 12);
    expect(r.extra.smt_contention).toBeCloseTo(0.008, 12);
    expect(r.rawSum + r.extra.smt_contention!).toBeCloseTo(1, 12);
    expect(r.runningPercent).toBe(83);
  });

  it('reads the AMD JSON output (perf ≥ 6.2) the same way', () => {
    const r = reading(fixture('amd-zen4-pipelinel1.jsonl'), 'PipelineL1');
    expectShares(r, AMD_RAW, 0.992);
    expect(r.runningPercent).toBe(83);
  });

  it('ignores level-2 metrics', () => {
    const text =
      fixture('amd-zen4-pipelinel1.csv') +
      ',,,,,30.0,%  bad_speculation_mispredicts\n,,,,,90.0,%  backend_bound_memory\n';
    expectShares(reading(text, 'PipelineL1'), AMD_RAW, 0.992);
  });

  it('counts a metric perf could not print (negative) as 0', () => {
    const r = reading(
      '1,,a,1,100.00,60.0,%  tma_retiring\n,,,,,10.0,%  tma_bad_speculation\n' +
        ',,,,,30.0,%  tma_frontend_bound\n,,,,,,%  tma_backend_bound\n',
      'TopdownL1',
    );
    expect(r.topdown.backendBound).toBe(0);
    expect(r.topdown.retiring).toBeCloseTo(0.6, 12);
    expect(sum(r)).toBeCloseTo(1, 12);
  });

  it('takes unitless fractions as they are, and old unitless percentages as percent', () => {
    // A metric without ScaleUnit is printed under its bare name, as a fraction.
    const fractions = reading(
      '1,,a,1,100.00,0.5,Retiring\n,,,,,0.1,Bad_Speculation\n,,,,,0.2,Frontend_Bound\n,,,,,0.2,Backend_Bound\n',
      'TopdownL1',
    );
    expect(fractions.raw.retiring).toBe(0.5);
    const percents = reading(
      'retiring,bad speculation,frontend bound,backend bound,\n40.0,10.0,20.0,30.0,\n',
      'topdown',
    );
    expect(percents.raw).toEqual({
      retiring: 0.4,
      badSpeculation: 0.1,
      frontendBound: 0.2,
      backendBound: 0.3,
    });
  });

  it('uses one core type on hybrid CPUs', () => {
    const r = reading(
      [
        '10,,cpu_atom/TOPDOWN_RETIRING.ALL_P:u/,1,100.00,10.0,%  tma_retiring',
        '1,,cpu_core/slots:u/,1,100.00,40.0,%  tma_retiring',
        ',,,,,10.0,%  tma_bad_speculation',
        ',,,,,20.0,%  tma_frontend_bound',
        ',,,,,30.0,%  tma_backend_bound',
      ].join('\n'),
      'TopdownL1',
    );
    expect(r.raw).toEqual({
      retiring: 0.4,
      badSpeculation: 0.1,
      frontendBound: 0.2,
      backendBound: 0.3,
    });
  });

  it('stays unsupported on this VM (recorded: perf has no PipelineL1 and counts no hardware)', () => {
    const parsed = parseTopdown(fixture('vm-topdown-unsupported.csv'), 'PipelineL1');
    expect(parsed).toEqual({ ok: false, reason: 'no Top-Down level-1 metrics in perf output' });
    expect(parseTopdown(fixture('vm-all-events.csv'), 'TopdownL1').ok).toBe(false);
  });

  it('says what is missing or empty', () => {
    expect(parseTopdown('1,,a,1,100.00,40.0,%  tma_retiring\n', 'TopdownL1')).toEqual({
      ok: false,
      reason: 'perf did not report bad_speculation, frontend_bound, backend_bound',
    });
    expect(
      parseTopdown('<not supported>,,a,0,100.00,,\n<not counted>,,b,0,0.00,,\n', 'TopdownL1'),
    ).toEqual({
      ok: false,
      reason: 'perf counted none of the metric events (unsupported on this host)',
    });
    expect(
      parseTopdown(
        'retiring,bad_speculation,frontend_bound,backend_bound\n0,0,0,0\n',
        'PipelineL1',
      ),
    ).toEqual({ ok: false, reason: 'all Top-Down level-1 metrics are zero' });
    expect(parseTopdown('', 'TopdownL1').ok).toBe(false);
  });
});

describe('topdownArgs', () => {
  it('uses TopdownL1 on Intel, PipelineL1 on AMD, nothing elsewhere', () => {
    expect(topdownGroupFor('GenuineIntel')).toBe('TopdownL1');
    expect(topdownGroupFor('AuthenticAMD')).toBe('PipelineL1');
    expect(topdownGroupFor('HygonGenuine')).toBeNull();
    expect(
      topdownArgs('/usr/bin/perf', 'AuthenticAMD', '/w/td.csv', ['/judge/program', 'in']),
    ).toEqual([
      '/usr/bin/perf',
      'stat',
      '-x',
      ',',
      '--no-big-num',
      '-o',
      '/w/td.csv',
      '-M',
      'PipelineL1',
      '--',
      '/judge/program',
      'in',
    ]);
    expect(topdownArgs('/usr/bin/perf', 'GenuineIntel', 'f', ['p'])).toContain('TopdownL1');
    expect(topdownArgs('/usr/bin/perf', 'unknown', 'f', ['p'])).toBeNull();
  });
});
