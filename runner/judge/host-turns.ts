// Turns on the judge host. Two kinds:
// - a **turn** (timed work: a measure round, the bandwidth probe, the profile) has the host to
//   itself: nothing else of any judging runs beside it;
// - an **untimed** turn (a build, the test stage, the portability pre-check) only needs to stay
//   away from timed work: several run side by side, up to one per CPU, so the builds and tests of
//   the judgings queued behind a session are done in one batch at the CPUs' combined speed.
// Turns are granted in the order they are asked for (an untimed one never overtakes a waiting
// turn, so rounds are not starved): a judging that arrives while a session is timing builds
// between two rounds, then joins the next one.
import os from 'node:os';

export interface HostTurns {
  /**
   * Runs `work` alone on the host, once every turn asked for before it has ended. Never call it
   * from inside a turn.
   */
  turn<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` beside other untimed work only (never beside a turn). Never call it from inside
   * a turn.
   */
  untimed<T>(work: () => Promise<T>): Promise<T>;
}

/** A host with one judging on it (`perfjudge judge`, tests): every turn is granted at once. */
export const soloTurns: HostTurns = { turn: (work) => work(), untimed: (work) => work() };

interface Request {
  alone: boolean;
  start: () => void;
}

/**
 * Turns for several judgings in one process, first come, first served; at most `parallel`
 * untimed ones at a time (default: the host's CPUs).
 */
export function createHostTurns(parallel = os.availableParallelism()): HostTurns {
  const queue: Request[] = [];
  let running = 0;
  let alone = false;
  const grant = () => {
    while (queue.length) {
      const next = queue[0]!;
      const fits = next.alone ? running === 0 : !alone && running < Math.max(1, parallel);
      if (!fits) return;
      queue.shift();
      running++;
      alone = next.alone;
      next.start();
    }
  };
  const ask = <T>(isAlone: boolean, work: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({
        alone: isAlone,
        start: () => {
          // The work starts in a microtask (never inside ask's caller); however it ends, the next
          // turns follow.
          Promise.resolve()
            .then(work)
            .then(resolve, reject)
            .finally(() => {
              running--;
              if (isAlone) alone = false;
              grant();
            });
        },
      });
      grant();
    });
  return { turn: (work) => ask(true, work), untimed: (work) => ask(false, work) };
}

/**
 * Each item's untimed work under `turns` (side by side, as many at a time as its untimed turns
 * allow), the results in the items' order. It settles only once every piece has ended, so the
 * caller may clean up after it; then a failure (the first in the items' order) is thrown.
 */
export async function untimedEach<I, T>(
  turns: HostTurns,
  items: readonly I[],
  work: (item: I, index: number) => Promise<T>,
): Promise<T[]> {
  const settled = await Promise.allSettled(
    items.map((item, index) => turns.untimed(() => work(item, index))),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
