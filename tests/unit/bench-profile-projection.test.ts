// The profile stage's projected share (bench judge profile): growing parts scaled with the input,
// fixed ones not, the measure stage scaled with the pairs, cachegrind hidden behind the runs where
// it ran beside them.
import { describe, expect, it } from 'vitest';
import type { JudgingResult } from '../../contracts';
import { projectProfileShare } from '../../bench/profile-projection';

/** 5 pairs and a warm-up pair of 4 s runs (12 s of overhead), 20 s of build and tests. */
function judging(partsMs: Record<string, number>): JudgingResult {
  return {
    durationMs: 100_000,
    stageDurationsMs: { measure: 60_000, profile: 20_000 },
    stages: {
      measure: {
        runs: Array.from({ length: 12 }, () => ({ stats: { wallMs: 4_000 } })),
        estimate: { pairs: 5 },
        baseline: { medianMs: 4_000 },
        solution: { medianMs: 4_000 },
      },
      profile: { memory: null, sampled: {}, topdown: null, notes: [], partsMs },
    },
  } as unknown as JudgingResult;
}

const MiB = 1 << 20;

describe('projectProfileShare', () => {
  it('scales the runs, keeps the fixed parts, and hides cachegrind behind longer runs', () => {
    const beside = judging({ memoryAndStacks: 8_000, cachegrind: 15_000, cachegrindWait: 7_000 });
    const p = projectProfileShare(beside, 256 * MiB, 32 * MiB, { warmups: 1 }, 5);
    expect(p.scale).toBe(8);
    // 5 s fixed (20 − 8 − 7); low: only the solution's 4 s run grows (8 + 4 × 7 = 36 s), high: all
    // of the part (64 s); 36 s and more of runs cover cachegrind's 15 s, so nothing is waited for.
    expect(p.profile.low).toBeCloseTo(41, 6);
    expect(p.profile.high).toBeCloseTo(69, 6);
    // 20 s of build and tests + the runs × 8 + their overhead.
    const measure = 48 * 8 + 12;
    expect(p.judging.low).toBeCloseTo(20 + measure + 41, 6);
    expect(p.share.high).toBeCloseTo(69 / (20 + measure + 69), 6);

    const most = projectProfileShare(beside, 256 * MiB, 32 * MiB, { warmups: 1 }, 30);
    expect(most.judging.low).toBeCloseTo(20 + (measure * 31) / 6 + 41, 6);
    expect(most.share.low).toBeLessThan(p.share.low);
  });

  it('adds cachegrind in full where it ran after the runs', () => {
    const after = judging({ memoryAndStacks: 8_000, cachegrind: 7_000 });
    const p = projectProfileShare(after, 256 * MiB, 32 * MiB, { warmups: 1 }, 5);
    expect(p.profile.low).toBeCloseTo(5 + 36 + 7, 6);
    // The baseline profiled too (first judging on a host): its run grows as well.
    const first = projectProfileShare(after, 256 * MiB, 32 * MiB, { warmups: 1 }, 5, {
      baselineProfiled: true,
    });
    expect(first.profile.low).toBeCloseTo(5 + 8 + 8 * 7 + 7, 6);
    // What grows known from the judge's log (a 4 s run, 2 s of perf script): one figure. The
    // baseline's 4 s median becomes 32 s at 8×: sampled at 49 Hz instead of 499, perf script
    // unwinds 8 × 49 / 499 as many samples.
    const known = projectProfileShare(after, 256 * MiB, 32 * MiB, { warmups: 1 }, 5, {
      growingMemory: { runMs: 4_000, scriptMs: 2_000 },
    });
    expect(known.profile.low).toBeCloseTo(5 + 8 + 4 * 7 + 2 * ((8 * 49) / 499 - 1) + 7, 6);
    expect(known.profile.high).toBeCloseTo(known.profile.low, 6);
  });
});
