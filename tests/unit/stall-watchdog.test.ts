// A judging is bounded as a whole: silent past the limit (twice the longest step's, plus a minute)
// it is aborted as wedged, with a message saying so; progress keeps it alive.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
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
});
