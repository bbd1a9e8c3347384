// A judging that stops making progress is wedged (an emulator that hangs between runs, a process
// the per-run backstop never saw): the watchdog ends it as the platform's fault, so the job is
// retried (handed back to the queue with its backoff) instead of holding the host for ever. Each
// run and build has its own limit; this bounds the whole judging by the longest silence an honest
// one can have: twice the longest step limit, plus a minute.
import type { Limits } from '../../contracts';
import type { HostSharing } from '../judge/judging-context';
import type { HostTurns } from '../judge/host-turns';

export const STALL_REASON = 'perfjudge: judging made no progress';

export function stallLimitMs(
  limits: Pick<Limits, 'buildSeconds' | 'testRunSeconds' | 'benchmarkRunSeconds'>,
): number {
  const longest = Math.max(limits.buildSeconds, limits.testRunSeconds, limits.benchmarkRunSeconds);
  return (2 * longest + 60) * 1000;
}

export interface StallWatchdog {
  /** Aborts with STALL_REASON after `limitMs` without a touch. */
  signal: AbortSignal;
  /** Progress: a stage, a run, a log line. */
  touch(): void;
  /** Not counting from now (waiting for the host) until the returned function is called. */
  pause(): () => void;
  /** Why it fired, in words, or null. */
  message(): string | null;
  stop(): void;
}

export function startStallWatchdog(
  limitMs: number,
  options: { now?: () => number; checkEveryMs?: number } = {},
): StallWatchdog {
  const now = options.now ?? Date.now;
  const controller = new AbortController();
  let last = now();
  let paused = 0;
  let fired: string | null = null;
  const timer = setInterval(
    () => {
      if (controller.signal.aborted || paused > 0 || now() - last < limitMs) return;
      fired =
        `no progress for ${Math.round((now() - last) / 1000)} s (the limit of a whole judging's ` +
        `silence is ${limitMs / 1000} s): the judging is wedged, handed back to be tried again`;
      controller.abort(STALL_REASON);
    },
    Math.min(options.checkEveryMs ?? 5_000, limitMs),
  );
  timer.unref();
  return {
    signal: controller.signal,
    touch: () => {
      last = now();
    },
    pause: () => {
      paused++;
      let resumed = false;
      return () => {
        if (resumed) return;
        resumed = true;
        paused--;
        last = now();
      };
    },
    message: () => fired,
    stop: () => clearInterval(timer),
  };
}

/**
 * The judging's share of the host with the watchdog paused while it waits: for a turn (other
 * judgings' builds and rounds go first), and through its measure session, whose rounds also time
 * the other entrants (each of its own runs is still bounded by its limit and the sandbox's).
 */
export function pausedWhileWaiting(sharing: HostSharing, watchdog: StallWatchdog): HostSharing {
  const paused =
    (ask: HostTurns['turn']) =>
    <T>(work: () => Promise<T>): Promise<T> => {
      const resume = watchdog.pause();
      return ask(() => {
        resume();
        return work();
      }).finally(resume);
    };
  return {
    turns: {
      turn: paused((work) => sharing.turns.turn(work)),
      untimed: paused((work) => sharing.turns.untimed(work)),
    },
    sessions: {
      join(key, baseline, entrant) {
        const resume = watchdog.pause();
        return sharing.sessions.join(key, baseline, entrant).finally(resume);
      },
    },
  };
}
