// Disturbance evidence and the rules that discard disturbed pairs, on recorded figures: the helper's
// report parsed into accounting, a run's evidence, the thresholds, and when a host is too busy.
import { describe, expect, it } from 'vitest';
import { manifestSchema, runEvidenceSchema } from '../../contracts';
import { cpuWallDisagreement, runEvidence } from '../../runner/judge/measure';
import { parseLdd, residentLabel } from '../../runner/judge/resident-files';
import type { ProgramRun } from '../../runner/sandbox/run-program';
import { toAccounting } from '../../runner/sandbox/result';
import { parseHelperReport } from '../../runner/sandbox/run-helper';
import {
  DEFAULT_DISTURBANCE,
  disturbanceDecision,
  disturbanceReasons,
  otherTasksMs,
  resolveDisturbance,
  speedupEstimate,
  createRng,
  wilsonUpper,
  type RunObservation,
} from '../../lib/core/stats';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';

const T = resolveDisturbance(undefined, 30);
const quiet: RunObservation = {
  wallMs: 1000,
  cpuMs: 995,
  cpuBusyMs: 1000,
  stealMs: 0,
  cpuMigrations: 0,
  tickMs: 10,
};

describe('disturbance thresholds', () => {
  it('fills in the defaults, and the discard budget defaults to maxPairs', () => {
    expect(T).toEqual({ ...DEFAULT_DISTURBANCE, maxDiscardedPairs: 30 });
    expect(resolveDisturbance({ maxOtherShare: 0.1, cpuTimeFallback: true }, 12)).toMatchObject({
      maxOtherShare: 0.1,
      cpuTimeFallback: true,
      maxDiscardedPairs: 12,
      minUtilization: DEFAULT_DISTURBANCE.minUtilization,
    });
  });

  it('are organizer-tunable in the manifest, validated, unknown keys refused', async () => {
    const { manifest } = await loadChallenge('wordcount');
    const base = { ...manifest, runPolicy: { ...manifest.runPolicy } };
    const ok = manifestSchema.safeParse({
      ...base,
      runPolicy: { ...base.runPolicy, disturbance: { maxOtherShare: 0.08, maxDiscardedPairs: 10 } },
    });
    expect(ok.success).toBe(true);
    const bad = manifestSchema.safeParse({
      ...base,
      runPolicy: { ...base.runPolicy, disturbance: { maxOtherShare: 2 } },
    });
    expect(bad.error?.issues[0]?.path).toEqual(['runPolicy', 'disturbance', 'maxOtherShare']);
    const unknown = manifestSchema.safeParse({
      ...base,
      runPolicy: { ...base.runPolicy, disturbance: { maxOther: 0.1 } },
    });
    expect(unknown.success).toBe(false);
  });
});

describe('which runs are disturbed', () => {
  it('calls a run that had its CPU to itself clean', () => {
    expect(disturbanceReasons(quiet, T)).toEqual([]);
    expect(otherTasksMs(quiet)).toBe(5);
  });

  it('flags other tasks that took more than 5% of the wall time, plus two ticks', () => {
    // A busy loop sharing the CPU for a third of the run.
    expect(disturbanceReasons({ ...quiet, wallMs: 1500, cpuBusyMs: 1500 }, T)).toEqual([
      'other-tasks',
    ]);
    // 60 ms of others in a 1 s run: under 5% + 20 ms, clean; 80 ms: disturbed.
    expect(disturbanceReasons({ ...quiet, cpuBusyMs: 995 + 60 }, T)).toEqual([]);
    expect(disturbanceReasons({ ...quiet, cpuBusyMs: 995 + 80 }, T)).toEqual(['other-tasks']);
  });

  it('does not call a short run disturbed for the tick it shared', () => {
    const short = {
      wallMs: 100,
      cpuMs: 92,
      cpuBusyMs: 110,
      stealMs: 0,
      cpuMigrations: 0,
      tickMs: 10,
    };
    expect(disturbanceReasons(short, T)).toEqual([]);
  });

  it('flags steal time and migrations', () => {
    expect(disturbanceReasons({ ...quiet, stealMs: 60 }, T)).toEqual(['steal']);
    expect(disturbanceReasons({ ...quiet, cpuMigrations: 2 }, T)).toEqual(['migrated']);
  });

  it("never blames the host for a program's own waiting when the CPU's accounting is there", () => {
    // The program slept half the run and nothing else ran: its wall time is its own business.
    const sleeper = { ...quiet, cpuMs: 500, cpuBusyMs: 510 };
    expect(disturbanceReasons(sleeper, T)).toEqual([]);
    // Without /proc/stat for the pinned CPU, low utilization is the only sign left.
    expect(disturbanceReasons({ ...sleeper, cpuBusyMs: null, tickMs: null }, T)).toEqual([
      'low-utilization',
    ]);
  });
});

describe('when a host is too busy', () => {
  const policy = { minPairs: 5 };
  it('goes on while the share of clean pairs can still fill minPairs', () => {
    expect(disturbanceDecision({ clean: 2, discarded: 3 }, policy, T)).toBe('continue');
    expect(disturbanceDecision({ clean: 4, discarded: 6 }, policy, T)).toBe('continue');
  });
  it('gives up once the clean share is confidently under half, whatever the clean pairs say', () => {
    // Not before 4 × minPairs attempts.
    expect(disturbanceDecision({ clean: 0, discarded: 19 }, policy, T)).toBe('continue');
    expect(disturbanceDecision({ clean: 0, discarded: 20 }, policy, T)).toBe('too-busy');
    // At 20 attempts: 5 clean (25%) is confidently under half, 6 (30%) is not yet.
    expect(disturbanceDecision({ clean: 5, discarded: 15 }, policy, T)).toBe('too-busy');
    expect(disturbanceDecision({ clean: 6, discarded: 14 }, policy, T)).toBe('continue');
    // Full load measured 25–33% clean: by 60 attempts 30% is refused, though 18 clean pairs are plenty.
    expect(disturbanceDecision({ clean: 18, discarded: 42 }, policy, T)).toBe('too-busy');
    // Bursty load measured 56–62% clean: it goes on.
    expect(disturbanceDecision({ clean: 12, discarded: 8 }, policy, T)).toBe('continue');
    const large = resolveDisturbance(undefined, 150);
    expect(disturbanceDecision({ clean: 87, discarded: 63 }, policy, large)).toBe('continue');
  });
  it('refuses a host with a 30% clean share nearly always, and one with 58% rarely', () => {
    const rng = createRng(77);
    const refusedShare = (p: number, maxPairs: number) => {
      const t = resolveDisturbance(undefined, maxPairs);
      let refused = 0;
      for (let i = 0; i < 4000; i++) {
        const tally = { clean: 0, discarded: 0 };
        for (;;) {
          if (rng.next() < p) tally.clean++;
          else tally.discarded++;
          const d = disturbanceDecision(tally, policy, t);
          if (d === 'too-busy') refused++;
          if (d !== 'continue' || tally.clean >= maxPairs) break;
        }
      }
      return refused / 4000;
    };
    expect(refusedShare(0.3, 150)).toBeGreaterThan(0.99);
    expect(refusedShare(0.3, 30)).toBeGreaterThan(0.8);
    expect(refusedShare(0.58, 150)).toBeLessThan(0.02);
    expect(refusedShare(0.58, 30)).toBeLessThan(0.02);
    expect(refusedShare(0.97, 150)).toBe(0);
  });
  it('bounds the clean share from above as Wilson does', () => {
    expect(wilsonUpper(0, 0, 2)).toBe(1);
    expect(wilsonUpper(20, 20, 2)).toBe(1);
    // 5 of 20 at z = 2: (0.25 + 0.1 + 2·√(0.009375 + 0.0025)) / 1.2
    expect(wilsonUpper(5, 20, 2)).toBeCloseTo((0.35 + 2 * Math.sqrt(0.011875)) / 1.2, 12);
  });
  it('gives up when the discard budget is spent before minPairs clean pairs', () => {
    const tight = { ...T, maxDiscardedPairs: 4 };
    expect(disturbanceDecision({ clean: 3, discarded: 4 }, policy, tight)).toBe('too-busy');
  });
  it('stops on the budget with enough clean pairs, estimating from them', () => {
    expect(disturbanceDecision({ clean: 25, discarded: 30 }, policy, T)).toBe('budget');
    expect(disturbanceDecision({ clean: 25, discarded: 29 }, policy, T)).toBe('continue');
  });
});

describe("the helper's accounting", () => {
  const line = JSON.stringify({
    exited: true,
    exitCode: 0,
    termSignal: 0,
    statusFromInit: true,
    execStarted: true,
    killed: null,
    wallNs: 1_000_000_000,
    setupNs: 5_000_000,
    userUs: 950_000,
    sysUs: 40_000,
    maxRssKb: 1024,
    minorFaults: 10,
    majorFaults: 0,
    voluntaryCtxSwitches: 1,
    involuntaryCtxSwitches: 40,
    counters: [],
    clockTicks: 100,
    cpuBusyTicks: 130,
    cpuStealTicks: -1,
    tasksStarted: 3,
    residency: [
      { pages: 4096, before: 0, after: 4096 },
      { pages: -1, before: -1, after: -1 },
    ],
  });

  it('turns ticks into milliseconds, -1 into null, and keeps the residency of files it could read', () => {
    const report = parseHelperReport(line)!;
    expect(toAccounting(report, ['/data/input.txt', '/missing'])).toEqual({
      cpuBusyMs: 1300,
      cpuStealMs: null,
      tasksStarted: 3,
      tickMs: 10,
      residency: [{ path: '/data/input.txt', pages: 4096, residentBefore: 0, residentAfter: 4096 }],
    });
  });

  it('still reads a report from before the accounting fields (all unknown)', () => {
    const old = JSON.parse(line) as Record<string, unknown>;
    for (const k of ['clockTicks', 'cpuBusyTicks', 'cpuStealTicks', 'tasksStarted', 'residency'])
      delete old[k];
    const acc = toAccounting(parseHelperReport(JSON.stringify(old))!, []);
    expect(acc).toMatchObject({ cpuBusyMs: null, cpuStealMs: null, tasksStarted: null });
  });
});

describe("a run's evidence", () => {
  const run = (over: Partial<ProgramRun> = {}): ProgramRun => ({
    exitCode: 0,
    signal: null,
    limitExceeded: null,
    wallTimeMs: 1500,
    userTimeMs: 960,
    sysTimeMs: 40,
    maxRssBytes: 1 << 20,
    minorFaults: 10,
    majorFaults: 0,
    voluntaryContextSwitches: 1,
    involuntaryContextSwitches: 120,
    stdoutBytes: 1,
    stdoutSha256: 'x',
    stderr: '',
    stderrBytes: 0,
    counters: {
      'task-clock': { value: 990, unit: 'msec', status: 'counted', runningPercent: 100 },
      'cpu-migrations': { value: 0, unit: '', status: 'counted', runningPercent: 100 },
    },
    accounting: {
      cpuBusyMs: 1500,
      cpuStealMs: 0,
      tasksStarted: 0,
      tickMs: 10,
      residency: [
        { path: '/data/in.txt', pages: 10, residentBefore: 0, residentAfter: 10 },
        { path: '/b/wordcount', pages: 5, residentBefore: 5, residentAfter: 5 },
        {
          path: '/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.33',
          pages: 600,
          residentBefore: 600,
          residentAfter: 600,
        },
      ],
    },
    ...over,
  });
  const files = { input: '/data/in.txt', binary: '/b/wordcount', judgeDisturbance: true };

  it('uses task-clock as the CPU time, subtracts it from the busy time, labels files without host paths', () => {
    const e = runEvidence(run(), T, files);
    expect(runEvidenceSchema.parse(e)).toEqual(e);
    expect(e).toMatchObject({
      cpuMs: 990,
      otherTasksMs: 510,
      cpuMigrations: 0,
      tasksStarted: 0,
      disturbed: ['other-tasks'],
    });
    expect(e.utilization).toBeCloseTo(0.66, 2);
    expect(e.residency.map((r) => r.file)).toEqual(['input', 'program', 'libstdc++.so.6.0.33']);
    expect(JSON.stringify(e)).not.toContain('/data/');
  });

  it('says null, not 0, where the sandbox could not measure, and judges nothing when told not to', () => {
    const { accounting: _none, ...bare } = run();
    const e = runEvidence({ ...bare, counters: {} }, T, { ...files, judgeDisturbance: false });
    expect(e).toMatchObject({ cpuMs: 1000, otherTasksMs: null, stealMs: null, tasksStarted: null });
    expect(e.disturbed).toEqual([]);
  });
});

describe('wall time vs CPU time', () => {
  const pairs = (ratio: number) =>
    Array.from({ length: 20 }, (_, i) => ({
      baselineMs: 1000 + i,
      solutionMs: (1000 + i) / ratio,
    }));
  it('warns when the two speedups disagree by more than the precision', () => {
    const wall = speedupEstimate(pairs(1.3));
    expect(cpuWallDisagreement(wall, speedupEstimate(pairs(1.302)), 0.01)).toBeNull();
    expect(cpuWallDisagreement(wall, speedupEstimate(pairs(1.6)), 0.01)).toMatch(
      /wall-time speedup 1\.300 and the CPU-time speedup 1\.600 differ by 18\.8%/,
    );
  });
});

describe('resident files', () => {
  it('reads library paths from ldd and names files without host paths', () => {
    const ldd = [
      '\tlinux-vdso.so.1 (0x00007ffd)',
      '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f)',
    ].join('\n');
    expect(parseLdd(ldd)).toEqual([
      '/lib/x86_64-linux-gnu/libstdc++.so.6',
      '/lib/x86_64-linux-gnu/libc.so.6',
      '/lib64/ld-linux-x86-64.so.2',
    ]);
    expect(residentLabel('/d/in', '/d/in', '/b/p')).toBe('input');
    expect(residentLabel('/b/p', '/d/in', '/b/p')).toBe('program');
    expect(residentLabel('/lib/libm.so.6', '/d/in', '/b/p')).toBe('libm.so.6');
  });
});
