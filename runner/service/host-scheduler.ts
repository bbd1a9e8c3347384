// How one runner process shares the judge host between the judgings it holds at once. The host
// lock (host-lock.ts: one judging process at a time on a machine, first come first served) is
// taken when the first judging arrives and released after the last has left; the judgings inside
// take turns (host-turns.ts) and share measure sessions (measure-session.ts), so queued
// submissions of one benchmark share the baseline's runs. Once another process waits for the lock
// (another target's runner, a final session, `perfjudge judge`) and the hold is older than its
// admission window, it takes no newcomer: they wait for the next hold, behind that process, so no
// runner keeps the host from the others. The window lets the judgings a worker took together
// (a queue of submissions) enter together even when two runners start at once.
import { createHostTurns } from '../judge/host-turns';
import type { HostSharing } from '../judge/judging-context';
import { createMeasureSessions } from '../judge/measure-session';
import { JudgingCancelledError } from '../judge/errors';
import type { HostLock } from './host-lock';

export interface HostScheduler {
  sharing: HostSharing;
  /**
   * Admits one judging to this process's hold of the host: resolves once it may run, with the
   * function it calls when it is done. `onWaiting`: how many takers are ahead, while it waits.
   */
  enter(options: EnterOptions): Promise<() => Promise<void>>;
}

export interface EnterOptions {
  note: (line: string) => void;
  onWaiting: (ahead: number) => void;
  signal?: AbortSignal;
}

/** Takes the host lock (judging-processor.ts takeHostLock), telling the waiters who is ahead. */
export type TakeLock = (onWaiting: (ahead: number) => void) => Promise<HostLock>;

/** How long after the lock is taken newcomers still join while another process waits. */
const ADMISSION_WINDOW_MS = 30_000;

interface Hold {
  lock: HostLock;
  since: number;
  members: number;
  /** False once another process waits for the lock: no newcomer joins this hold. */
  open: boolean;
  ended: Promise<void>;
  end: () => void;
}

export function createHostScheduler(
  takeLock: TakeLock,
  admissionWindowMs = ADMISSION_WINDOW_MS,
): HostScheduler {
  const turns = createHostTurns();
  const sharing: HostSharing = { turns, sessions: createMeasureSessions(turns) };
  let hold: Hold | null = null;
  let taking: Promise<Hold> | null = null;
  const waiters = new Set<(ahead: number) => void>();

  const take = (): Promise<Hold> =>
    (taking ??= takeLock((ahead) => waiters.forEach((w) => w(ahead))).then(
      (lock) => {
        let end!: () => void;
        const ended = new Promise<void>((resolve) => (end = resolve));
        const taken: Hold = { lock, since: Date.now(), members: 0, open: true, ended, end };
        hold = taken;
        taking = null;
        // Everyone who waited for it joins in the microtasks that follow; nobody did: let go.
        setImmediate(() => {
          if (taken.members === 0) void release(taken);
        });
        return taken;
      },
      (error: unknown) => {
        taking = null;
        throw error;
      },
    ));

  const release = async (released: Hold): Promise<void> => {
    if (hold === released) hold = null;
    await released.lock.release();
    released.end();
  };

  /** `tookIt`: it waited for this hold to be taken, so the hold is its own whoever waits now. */
  const join = async (
    current: Hold,
    note: (line: string) => void,
    tookIt: boolean,
  ): Promise<boolean> => {
    const windowOver = Date.now() - current.since > admissionWindowMs;
    if (!tookIt && current.open && windowOver && (await current.lock.waiting()) > 0) {
      current.open = false;
      note('another judging process waits for the host: this one takes its turn after it');
    }
    if ((!current.open && !tookIt) || hold !== current) return false;
    current.members++;
    return true;
  };

  return {
    sharing,
    async enter({ note, onWaiting, signal }) {
      waiters.add(onWaiting);
      try {
        for (;;) {
          if (signal?.aborted) throw new JudgingCancelledError();
          const tookIt = hold === null;
          const current = hold ?? (await untilAborted(take(), signal));
          if (await join(current, note, tookIt)) {
            let left = false;
            return async () => {
              if (left) return;
              left = true;
              if (--current.members === 0) await release(current);
            };
          }
          await untilAborted(current.ended, signal);
        }
      } finally {
        waiters.delete(onWaiting);
      }
    },
  };
}

/** `promise`, or a JudgingCancelledError as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new JudgingCancelledError());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
