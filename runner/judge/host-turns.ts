// Turns on the judge host: work that runs programs or compilers (a build, the tests, a timed round,
// the profile) takes a turn, and turns never overlap, so nothing a judging does runs beside a
// timed run of another. Turns are granted first come, first served: a judging that arrives while
// a session is timing builds between two rounds, then joins the next one.

export interface HostTurns {
  /** Runs `work` once every turn asked for before it has ended. Never call it from inside a turn. */
  turn<T>(work: () => Promise<T>): Promise<T>;
}

/** A host with one judging on it (`perfjudge judge`, tests): every turn is granted at once. */
export const soloTurns: HostTurns = { turn: (work) => work() };

/** Turns for several judgings in one process, first come, first served. */
export function createHostTurns(): HostTurns {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    turn<T>(work: () => Promise<T>): Promise<T> {
      const mine = tail.then(work);
      // The next turn waits for this one to end, however it ends.
      tail = mine.catch(() => undefined);
      return mine;
    },
  };
}
