// The final session's schedule (runner/final/schedule.ts): rotated orders, which rounds are left
// to time after a checkpoint, which entrants the checkpoint already excluded, the time left.
import { describe, expect, it } from 'vitest';
import { BASELINE_ENTRANT, type FinalRound, type FinalRun } from '../../contracts/final';
import {
  checkpointRounds,
  etaMs,
  exclusionsInCheckpoint,
  roundOrder,
  roundsToTime,
} from '../../runner/final/schedule';

function run(entrant: string, correct = true, failure: string | null = null): FinalRun {
  return { entrant, wallMs: 10, cpuMs: 10, correct, failure, evidence: null };
}

function round(number: number, runs: FinalRun[] = [run(BASELINE_ENTRANT)]): FinalRound {
  return {
    round: number,
    order: runs.map((r) => r.entrant),
    runs,
    discardedAttempts: 0,
    hostFingerprintHash: 'h',
    finishedAt: new Date(0).toISOString(),
  };
}

describe('final session schedule', () => {
  it('rotates the baseline and the entrants by the round number', () => {
    expect(roundOrder(0, ['a', 'b'])).toEqual([BASELINE_ENTRANT, 'a', 'b']);
    expect(roundOrder(1, ['a', 'b'])).toEqual(['a', 'b', BASELINE_ENTRANT]);
    expect(roundOrder(2, ['a', 'b'])).toEqual(['b', BASELINE_ENTRANT, 'a']);
    expect(roundOrder(3, ['a', 'b'])).toEqual(roundOrder(0, ['a', 'b']));
    // Over as many rounds as there are runs, everyone is first once.
    const firsts = [0, 1, 2, 3].map((r) => roundOrder(r, ['a', 'b', 'c'])[0]);
    expect(new Set(firsts)).toEqual(new Set([BASELINE_ENTRANT, 'a', 'b', 'c']));
  });

  it('times only the rounds the checkpoint does not have, and keeps only the job’s own', () => {
    const done = [round(1), round(4), round(1), round(9)];
    expect(checkpointRounds(done, [0, 1, 2, 3, 4]).map((r) => r.round)).toEqual([1, 4]);
    expect(roundsToTime([0, 1, 2, 3, 4], checkpointRounds(done, [0, 1, 2, 3, 4]))).toEqual([
      0, 2, 3,
    ]);
    expect(roundsToTime([3, 3, 5], [])).toEqual([3, 5]);
  });

  it('excludes an entrant whose run failed in a finished round, the first failure as the reason', () => {
    const done = [
      round(0, [run(BASELINE_ENTRANT), run('a'), run('b', false, 'exit code 3')]),
      round(1, [run(BASELINE_ENTRANT), run('a', false, 'wrong output'), run('b', false, 'later')]),
    ];
    expect(exclusionsInCheckpoint(done)).toEqual([
      { entrantId: 'b', reason: 'round 1: exit code 3' },
      { entrantId: 'a', reason: 'round 2: wrong output' },
    ]);
  });

  it('estimates the time left from the pace so far', () => {
    expect(etaMs([], 5)).toBeNull();
    expect(etaMs([100, 300], 3)).toBe(600);
    expect(etaMs([100], 0)).toBe(0);
  });
});
