// The measure stage's pair-loop decisions on scripted pairs, without a sandbox or a run: which
// pairs are kept or discarded, when the loop stops and why, and what its progress line says.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../contracts';
import {
  newPairLoop,
  pairProgressMessage,
  recordPair,
  stopDecision,
  usedPairs,
  type PairLoop,
} from '../../runner/judge/pair-loop';

const POLICY = { minPairs: 3, maxPairs: 6, precision: 0.01 };

/** A timed run of `wallMs` (its CPU time the same unless given), disturbed for the reasons given. */
function run(side: Run['side'], wallMs: number, disturbed: string[] = [], cpuMs = wallMs): Run {
  return {
    side,
    kind: 'timed',
    pair: 0,
    stats: {
      wallMs,
      userMs: cpuMs,
      sysMs: 0,
      maxRssBytes: 1 << 20,
      minorFaults: 1,
      majorFaults: 0,
      voluntaryContextSwitches: 0,
      involuntaryContextSwitches: 0,
      cpuUtilization: cpuMs / wallMs,
    },
    outputBytes: 1,
    outputSha256: 'x',
    correct: true,
    exitCode: 0,
    signal: null,
    counters: {},
    evidence: {
      cpuMs,
      utilization: cpuMs / wallMs,
      involuntaryContextSwitches: 0,
      otherTasksMs: 0,
      stealMs: 0,
      cpuMigrations: 0,
      tasksStarted: 0,
      tickMs: 10,
      residency: [],
      disturbed,
    },
    discarded: false,
  };
}

/** Adds a pair whose speedup is `speedup` (baseline 1000 ms), disturbed for the reasons given. */
function addPair(loop: PairLoop, speedup: number, disturbed: string[] = []): [Run, Run] {
  const b = run('baseline', 1000);
  const s = run('solution', 1000 / speedup, disturbed);
  recordPair(loop, b, s);
  return [b, s];
}

describe('recordPair', () => {
  it('keeps a clean pair and discards a disturbed one, marking both runs and counting why', () => {
    const loop = newPairLoop();
    addPair(loop, 2);
    const [b, s] = addPair(loop, 2, ['other tasks on the CPU', 'steal']);
    addPair(loop, 2, ['steal']);
    expect(loop.all).toHaveLength(3);
    expect(loop.clean).toHaveLength(1);
    expect(loop.discarded).toBe(2);
    expect(b.discarded && s.discarded).toBe(true);
    expect(loop.reasons).toEqual({ 'other tasks on the CPU': 1, steal: 2 });
  });

  it('discards nothing once the loop counts CPU time', () => {
    const loop = newPairLoop();
    loop.basis = 'cpu-time';
    const [b] = addPair(loop, 2, ['steal']);
    expect(b.discarded).toBe(false);
    expect(loop.discarded).toBe(0);
    expect(usedPairs(loop)).toHaveLength(1);
  });

  it('takes a pair by the evidence CPU time, never zero', () => {
    const loop = newPairLoop();
    recordPair(loop, run('baseline', 1000, [], 900), run('solution', 500, [], 0));
    expect(loop.all[0]).toEqual({
      wall: { baselineMs: 1000, solutionMs: 500 },
      cpu: { baselineMs: 900, solutionMs: 1e-3 },
    });
  });
});

describe('stopDecision', () => {
  it('stops as precise when the clean pairs agree, and not before the minimum', () => {
    const loop = newPairLoop();
    const policy = { minPairs: 10, maxPairs: 100, precision: 0.01 };
    for (let i = 0; i < 9; i++) addPair(loop, 2);
    expect(stopDecision(loop, false, false, policy)).toBeNull();
    addPair(loop, 2);
    expect(stopDecision(loop, false, false, policy)).toBe('precise');
  });

  it('stops on the budget of pairs when the clean pairs stay spread out', () => {
    const loop = newPairLoop();
    for (const speedup of [1, 2, 1.2, 1.8, 1.4]) addPair(loop, speedup);
    expect(stopDecision(loop, false, false, POLICY)).toBeNull();
    addPair(loop, 1.6);
    expect(stopDecision(loop, false, false, POLICY)).toBe('budget');
  });

  it('lets a disturbed pair decide nothing unless the discard budget is spent', () => {
    const loop = newPairLoop();
    for (const speedup of [1, 2, 1.2, 1.8, 1.4, 1.6]) addPair(loop, speedup);
    addPair(loop, 1.5, ['steal']);
    expect(stopDecision(loop, true, false, POLICY)).toBeNull();
    expect(stopDecision(loop, true, true, POLICY)).toBe('budget');
  });

  it('stops with what it has when the discard budget is spent before the minimum', () => {
    const loop = newPairLoop();
    addPair(loop, 2);
    addPair(loop, 2, ['steal']);
    expect(stopDecision(loop, true, true, POLICY)).toBe('budget');
  });

  it('counts every pair, discarded ones too, on CPU time', () => {
    const loop = newPairLoop();
    for (const speedup of [1, 2, 1.2, 1.8, 1.4]) addPair(loop, speedup, ['steal']);
    loop.basis = 'cpu-time';
    expect(stopDecision(loop, true, false, POLICY)).toBeNull();
    addPair(loop, 1.6, ['steal']);
    expect(stopDecision(loop, true, false, POLICY)).toBe('budget');
  });
});

describe('pairProgressMessage', () => {
  it('says the speedup so far, the discards, and the CPU-time basis', () => {
    const loop = newPairLoop();
    addPair(loop, 2, ['steal']);
    expect(pairProgressMessage(loop, 0)).toBe('pair 1: 1 discarded as disturbed');
    addPair(loop, 2);
    expect(pairProgressMessage(loop, 1)).toBe(
      'pair 2: speedup 2.000 (±0.0%), 1 discarded as disturbed',
    );
    loop.basis = 'cpu-time';
    expect(pairProgressMessage(loop, 1)).toMatch(/^pair 2: CPU-time speedup 2\.000 /);
  });
});
