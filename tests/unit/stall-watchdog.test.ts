// A judging is bounded as a whole: silent past the limit (twice the longest step's, plus a minute)
// it is aborted as wedged, with a message saying so; progress keeps it alive.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHostTurns } from '../../runner/judge/host-turns';
import { createMeasureSessions } from '../../runner/judge/measure-session';
import {
  pausedWhileWaiting,
  STALL_REASON,
  stallLimitMs,
  startStallWatchdog,
} from '../../runner/service/stall-watchdog';

afterEach(() => {
  vi.useRealTimers();
});

describe('the stall watchdog', () => {
  it('allows twice the longest step limit plus a minute', () => {
    expect(stallLimitMs({ buildSeconds: 120, testRunSeconds: 10, benchmarkRunSeconds: 30 })).toBe(
      300_000,
    );
  });

  it('fires after the limit of silence, not while the judging makes progress', () => {
    vi.useFakeTimers();
    const watchdog = startStallWatchdog(10_000, { checkEveryMs: 1_000 });
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(8_000);
      watchdog.touch();
    }
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(11_000);
    expect(watchdog.signal.aborted).toBe(true);
    expect(watchdog.signal.reason).toBe(STALL_REASON);
    expect(watchdog.message()).toMatch(/no progress for 1[01] s .*wedged, handed back/);
    watchdog.stop();
  });

  it('does not count the time a judging waits for the host (turns, its session)', async () => {
    vi.useFakeTimers();
    const watchdog = startStallWatchdog(10_000, { checkEveryMs: 1_000 });
    let release!: () => void;
    const othersTurn = new Promise<void>((resolve) => (release = resolve));
    const turns = createHostTurns();
    void turns.turn(() => othersTurn);
    const sharing = pausedWhileWaiting({ turns, sessions: createMeasureSessions(turns) }, watchdog);
    const mine = sharing.turns.turn(() => Promise.resolve('built'));
    vi.advanceTimersByTime(60_000);
    expect(watchdog.signal.aborted).toBe(false);
    release();
    await expect(mine).resolves.toBe('built');
    // Counting again once its turn came: silent past the limit, it fires.
    vi.advanceTimersByTime(11_000);
    expect(watchdog.signal.aborted).toBe(true);
    watchdog.stop();
  });
});
