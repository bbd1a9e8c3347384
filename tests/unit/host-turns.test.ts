// Host turns: a turn (timed work) runs alone; untimed work (builds, tests) runs side by side up to
// the limit, never beside a turn; turns are granted in the order asked, so untimed work asked for
// after a waiting turn does not overtake it.
import { describe, expect, it } from 'vitest';
import { createHostTurns, untimedEach } from '../../runner/judge/host-turns';

/** Work that records when it runs beside others, and ends when told. */
function tracker() {
  let now = 0;
  let maxUntimed = 0;
  const running = new Set<string>();
  const log: string[] = [];
  const overlaps: string[] = [];
  const work = (name: string, timed: boolean) => () => {
    if (timed && running.size) overlaps.push(`${name} beside ${[...running].join(',')}`);
    for (const other of running)
      if (other.startsWith('T')) overlaps.push(`${name} beside ${other}`);
    running.add(name);
    log.push(`+${name}`);
    if (!timed) maxUntimed = Math.max(maxUntimed, running.size);
    return new Promise<string>((resolve) =>
      setTimeout(
        () => {
          running.delete(name);
          log.push(`-${name}`);
          resolve(name);
        },
        5 + (now++ % 3),
      ),
    );
  };
  return { work, log, overlaps, maxUntimed: () => maxUntimed };
}

describe('host turns', () => {
  it('runs untimed work side by side up to the limit and never beside a turn', async () => {
    const turns = createHostTurns(2);
    const t = tracker();
    await Promise.all([
      turns.untimed(t.work('b1', false)),
      turns.untimed(t.work('b2', false)),
      turns.untimed(t.work('b3', false)),
      turns.turn(t.work('T1', true)),
      turns.untimed(t.work('b4', false)),
      turns.turn(t.work('T2', true)),
    ]);
    expect(t.overlaps).toEqual([]);
    expect(t.maxUntimed()).toBe(2);
    // First come, first served: b4 waits for T1, although a slot was free while T1 waited.
    expect(t.log.indexOf('+b4')).toBeGreaterThan(t.log.indexOf('-T1'));
    expect(t.log.indexOf('+T1')).toBeGreaterThan(t.log.indexOf('-b3'));
    expect(t.log.indexOf('+T2')).toBeGreaterThan(t.log.indexOf('-b4'));
  });

  it('goes on after work that fails', async () => {
    const turns = createHostTurns(1);
    const failed = turns.untimed(() => Promise.reject(new Error('no compiler')));
    const next = turns.turn(() => Promise.resolve('timed'));
    await expect(failed).rejects.toThrow('no compiler');
    await expect(next).resolves.toBe('timed');
  });

  it("untimedEach: results in the items' order, and a failure only once all have ended", async () => {
    const t = tracker();
    const names = ['e1', 'e2', 'e3'];
    await expect(
      untimedEach(createHostTurns(2), names, (name) => t.work(name, false)()),
    ).resolves.toEqual(names);
    expect(t.maxUntimed()).toBe(2);
    const ended: string[] = [];
    const failing = untimedEach(createHostTurns(2), names, async (name) => {
      await new Promise((resolve) => setTimeout(resolve, name === 'e2' ? 1 : 20));
      ended.push(name);
      if (name === 'e2') throw new Error('e2 did not build');
      return name;
    });
    await expect(failing).rejects.toThrow('e2 did not build');
    expect(ended.sort()).toEqual(names);
  });
});
