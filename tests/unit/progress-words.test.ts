import { describe, expect, it } from 'vitest';
import {
  describeTargetProgress,
  formatEta,
  type TargetProgressFigures,
} from '../../lib/server/web/progress-words';

const base: TargetProgressFigures = {
  status: 'QUEUED',
  stage: 'queued',
  verdict: null,
  message: null,
  ahead: null,
  aheadForHost: null,
  pairs: null,
  etaMs: null,
};

describe('describeTargetProgress', () => {
  it('tells a queued judging its place and when it should be done', () => {
    expect(describeTargetProgress({ ...base, ahead: 2, etaMs: 9 * 60_000 })).toBe(
      'Queued: 2 ahead, done in about 9 min',
    );
    expect(describeTargetProgress({ ...base, ahead: 0 })).toBe('Queued: next in line');
  });

  it('says waiting for the host, not judging, while the host lock is held by another', () => {
    expect(
      describeTargetProgress({ ...base, status: 'WAITING', stage: 'waiting', aheadForHost: 1 }),
    ).toBe('Waiting for the host: another judging is using it (1 ahead)');
  });

  it('counts pairs and shows no interval before the fewest pairs', () => {
    const measuring = {
      ...base,
      status: 'JUDGING' as const,
      stage: 'measure' as const,
      message: 'pair 1: speedup 2.617 (±0.0%)',
    };
    const early = describeTargetProgress({
      ...measuring,
      pairs: { done: 1, min: 5, max: 40, discarded: 0 },
      etaMs: 200_000,
    });
    expect(early).toBe(
      'Measuring: pair 1 of 5 to 40; the speedup is estimated from pair 5 on · about 3 min left',
    );
    expect(early).not.toContain('±');
    expect(
      describeTargetProgress({ ...measuring, pairs: { done: 12, min: 5, max: 40, discarded: 2 } }),
    ).toBe('Measuring: pair 12 of 5 to 40, 2 discarded as disturbed');
  });

  it('falls back to the runner’s own words for other stages', () => {
    expect(
      describeTargetProgress({ ...base, status: 'JUDGING', stage: 'build', message: 'solution' }),
    ).toBe('Building: solution');
  });
});

describe('formatEta', () => {
  it('rounds to what an estimate can claim', () => {
    expect(formatEta(12_000)).toBe('about 10 s');
    expect(formatEta(150_000)).toBe('about 3 min');
    expect(formatEta(65 * 60_000)).toBe('about 1 h 5 min');
  });
});
