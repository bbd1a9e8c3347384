// The measurement's depth on this machine: a judged patch shows real software counters, hardware
// counters marked unsupported (this VM has no PMU), cachegrind counts identical across two
// judgings, and a memory series of at least 20 points for a run of a second or more.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JudgingResult } from '../../contracts';
import { CHALLENGES_DIR } from '../../lib/core/challenge/load-manifest';
import { judgeForTest } from '../helpers/judging';

let first: JudgingResult;
let second: JudgingResult;

beforeAll(async () => {
  const patch = await readFile(
    path.join(CHALLENGES_DIR, 'wordcount/submissions/accepted/fast-hash-table.patch'),
  );
  // 24 MiB: the baseline runs for about a second here, long enough for a memory series. No
  // warm-up runs (a second and more each): no assertion reads them.
  const options = {
    benchmarkBytes: 24 << 20,
    publicBytes: null,
    runPolicy: { warmups: 0, minPairs: 3, maxPairs: 3 },
  };
  first = await judgeForTest(patch, options);
  second = await judgeForTest(patch, options);
}, 600_000);

describe('measurement depth', () => {
  it('accepts the patch both times', () => {
    expect(first.verdict, first.message).toBe('ACCEPTED');
    expect(second.verdict, second.message).toBe('ACCEPTED');
  });

  it('shows software counters counted and hardware counters unsupported, side by side', () => {
    const counters = new Map(first.stages.measure!.counters.map((c) => [c.name, c]));
    const taskClock = counters.get('task-clock')!;
    expect(taskClock.status).toBe('counted');
    expect(taskClock.baseline).toBeGreaterThan(0);
    expect(taskClock.ratio).toBeGreaterThan(0);
    expect(counters.get('page-faults')?.status).toBe('counted');
    if (!first.host.hardwareCounters) {
      for (const name of ['cycles', 'instructions', 'branch-misses']) {
        expect(counters.get(name)?.status, name).toBe('unsupported');
        expect(counters.get(name)?.baseline, name).toBeNull();
      }
      expect(first.warnings.join('\n')).toMatch(/hardware counters are unsupported/);
    }
    const timed = first.stages.measure!.runs.filter((r) => r.kind === 'timed');
    expect(timed.every((r) => r.counters['task-clock']?.status === 'counted')).toBe(true);
  });

  it('gives identical cachegrind counts in two judgings, and an instruction speedup', () => {
    const a = first.stages.profile!.deterministic!;
    const b = second.stages.profile!.deterministic!;
    expect(a.baseline).toEqual(b.baseline);
    expect(a.solution).toEqual(b.solution);
    expect(a.baseline.instructions).toBeGreaterThan(0);
    expect(a.instructionSpeedup).toBeCloseTo(a.baseline.instructions / a.solution.instructions, 12);
    expect(a.instructionSpeedup).toBeGreaterThan(1);
    expect(a.flags.join(' ')).not.toContain('native');
  });

  it('names the functions where each side spends its instructions, the same in both judgings', () => {
    const hotspots = first.stages.profile!.deterministic!.hotspots!;
    expect(hotspots).toEqual(second.stages.profile!.deterministic!.hotspots);
    for (const side of [hotspots.baseline, hotspots.solution]) {
      expect(side.functions.length).toBeGreaterThan(3);
      expect(side.functions[0]!.instructions).toBeGreaterThan(0);
      expect(side.functions.some((f) => f.name.startsWith('_Z'))).toBe(false);
    }
    // The baseline's time goes into std::unordered_map and the stream's operator>>.
    expect(hotspots.baseline.functions.some((f) => /std::/.test(f.name))).toBe(true);
  });

  it('samples call stacks of one timed-input run per side with perf record from outside', () => {
    const sampled = first.stages.profile!.sampled!;
    expect(sampled, first.stages.profile!.notes.join('\n')).not.toBeNull();
    expect(sampled.baseline.event).toBe(first.host.hardwareCounters ? 'cycles' : 'cpu-clock');
    for (const side of [sampled.baseline, sampled.solution]) {
      expect(side.samples).toBeGreaterThan(20);
      const frames = side.stacks.flatMap((s) => s.frames);
      expect(frames.some((f) => f.startsWith('wordcount'))).toBe(true);
    }
    // The baseline unwinds up to main. The solution's wordcount keeps a 64 KiB buffer on its stack,
    // more than the 8 KiB perf copies with a sample: its stacks stop at wordcount, whose caller is
    // unknown (docs/profiles.md), and never pass through another program's frames.
    expect(sampled.baseline.stacks.flatMap((s) => s.frames)).toContain('main');
    for (const { frames } of sampled.solution.stacks) {
      const at = frames.findIndex((f) => f.startsWith('wordcount'));
      if (at > 0 && !frames.includes('main'))
        expect(frames.slice(0, at), frames.join(';')).toEqual(['[unknown address]']);
    }
    // The second judging reused the baseline's profile (same build, input and host).
    expect(second.stages.profile!.sampled!.baseline).toEqual(sampled.baseline);
  });

  it('records memory over time for both sides', () => {
    const memory = first.stages.profile!.memory!;
    expect(memory.baseline.durationMs).toBeGreaterThan(500);
    expect(memory.baseline.points.length).toBeGreaterThanOrEqual(20);
    expect(memory.baseline.peaks.rssBytes).toBeGreaterThan(memory.baseline.points[0]!.rssBytes);
    expect(memory.solution.points.length).toBeGreaterThan(0);
    // Peaks come from every sample, so no point exceeds them.
    expect(Math.max(...memory.baseline.points.map((p) => p.rssBytes))).toBeLessThanOrEqual(
      memory.baseline.peaks.rssBytes,
    );
  });

  it('says why Top-Down is missing on a host without a PMU, and records the host conditions', () => {
    const profile = first.stages.profile!;
    if (!first.host.hardwareCounters) {
      expect(profile.topdown).toBeNull();
      expect(profile.notes.join('\n')).toMatch(/Top-Down.*unsupported/);
    }
    expect(first.host.pinnedCpu).not.toBeNull();
    expect(first.host.perfVersion).toMatch(/perf version/);
  });
});
