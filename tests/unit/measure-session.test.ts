// The measure session's rounds, with scripted entrants (no sandbox): one baseline run per round
// shared by every entrant in it, a random order per round, a late arrival joining at the next
// round, an entrant leaving as soon as it is done (or failed) while the others go on, the session
// size, the host time each is charged, and a failing baseline ending everyone's judging. The same
// engine under a final evaluation's plan: numbered rounds in the plan's order, a round started over,
// an entrant that fails leaving even from a round timed again, the baseline timing rounds alone.
import { describe, expect, it } from 'vitest';
import type { MeasureSession, Run } from '../../contracts';
import { createHostTurns, soloTurns } from '../../runner/judge/host-turns';
import { JudgingCancelledError, JudgeError } from '../../runner/judge/errors';
import { describeMeasureSession } from '../../lib/core/stats/session-cost';
import {
  createMeasureSessions,
  runSession,
  type RoundPlan,
  type SessionBaseline,
  type SessionEntrant,
} from '../../runner/judge/measure-session';

function run(side: Run['side'], wallMs: number, correct = true): Run {
  return {
    side,
    kind: 'timed',
    pair: null,
    stats: { wallMs } as Run['stats'],
    outputBytes: 0,
    outputSha256: '',
    correct,
    exitCode: 0,
    signal: null,
    counters: {},
  };
}

/** What the script saw: every run in order, as "B" or the entrant's name. */
interface Script {
  log: string[];
  baseline: SessionBaseline;
}

function script(baselineMs = 100, failAt = Infinity): Script {
  const log: string[] = [];
  let runs = 0;
  return {
    log,
    baseline: {
      warmups: 1,
      run(kind) {
        log.push(kind === 'warmup' ? 'Bw' : 'B');
        if (kind === 'timed' && ++runs >= failAt)
          return Promise.reject(new JudgeError('the baseline failed on the benchmark input'));
        return Promise.resolve(run('baseline', baselineMs));
      },
    },
  };
}

/** An entrant done after `pairs` rounds, whose run takes `ms`; `wrongAt`: its pair that fails. */
function entrant(
  name: string,
  s: Script,
  options: { pairs: number; ms?: number; wrongAt?: number; signal?: AbortSignal },
) {
  const pairs: Array<{ baseline: Run; own: Run; pair: number; baselineFirst: boolean }> = [];
  const e: SessionEntrant & { pairs: typeof pairs } = {
    pairs,
    workDir: `/tmp/${name}`,
    signal: options.signal,
    warmUp: () => {
      s.log.push(`${name}w`);
      return Promise.resolve(true);
    },
    runTimed: (pair) => {
      s.log.push(name);
      return Promise.resolve(run('solution', options.ms ?? 50, pair !== options.wrongAt));
    },
    afterRound(baseline, own, pair, baselineFirst) {
      pairs.push({ baseline, own, pair, baselineFirst });
      return !own.correct || pairs.length >= options.pairs;
    },
  };
  return e;
}

describe('measure sessions', () => {
  it('a lone judging is a session of one: the warm-ups (baseline first), then one baseline run per pair', async () => {
    const s = script();
    const sessions = createMeasureSessions(soloTurns, 1);
    const alone = entrant('A', s, { pairs: 3 });
    const session = await sessions.join({ key: 'k', size: 8 }, () => s.baseline, alone);
    expect(s.log.filter((x) => x === 'B')).toHaveLength(3);
    expect(s.log.slice(0, 2)).toEqual(['Bw', 'Aw']);
    expect(session).toMatchObject({ entrants: 1, rounds: 3, sharedBaselineRuns: 0 });
    // Alone, the whole baseline run is its own: 3 × (100 + 50).
    expect(session.hostMs).toBe(450);
    expect(session.aloneHostMs).toBe(450);
  });

  it('entrants share each round’s baseline run, in a random order per round', async () => {
    const s = script();
    const sessions = createMeasureSessions(createHostTurns(), 7);
    const a = entrant('A', s, { pairs: 12 });
    const b = entrant('B1', s, { pairs: 12 });
    const c = entrant('C', s, { pairs: 12 });
    const key = { key: 'k', size: 8 };
    const done = await Promise.all([a, b, c].map((e) => sessions.join(key, () => s.baseline, e)));
    // 12 rounds, one baseline run each, whoever is in the session.
    expect(s.log.filter((x) => x === 'B')).toHaveLength(12);
    for (const d of done)
      expect(d).toMatchObject({ entrants: 3, rounds: 12, sharedBaselineRuns: 12 });
    // Each is charged its own runs and a third of every baseline run: 12 × (50 + 100/3).
    expect(done[0]!.hostMs).toBeCloseTo(1000, 6);
    expect(done[0]!.aloneHostMs).toBe(1800);
    // The pairs of one round hold the same baseline run (as copies: each entrant marks its own).
    expect(a.pairs[0]!.baseline).not.toBe(b.pairs[0]!.baseline);
    expect(a.pairs[0]!.baseline).toEqual(b.pairs[0]!.baseline);
    // Not always the same order: the baseline's place in its round varies.
    const rounds: string[][] = [];
    let round: string[] = [];
    for (const x of s.log.filter((x) => !x.endsWith('w'))) {
      round.push(x);
      if (round.length === 4) {
        rounds.push(round);
        round = [];
      }
    }
    const baselinePlaces = new Set(rounds.map((r) => r.indexOf('B')));
    expect(baselinePlaces.size).toBeGreaterThan(1);
    // Each entrant is told whether the baseline ran before it in its round.
    rounds.forEach((r, i) =>
      expect(a.pairs[i]!.baselineFirst).toBe(r.indexOf('B') < r.indexOf('A')),
    );
    for (const r of rounds) expect([...r].sort()).toEqual(['A', 'B', 'B1', 'C']);
  });

  it('a late arrival joins at the next round; one done or failed leaves while the others go on', async () => {
    const s = script();
    const sessions = createMeasureSessions(createHostTurns(), 3);
    const key = { key: 'k', size: 8 };
    const quick = entrant('Q', s, { pairs: 2 });
    const wrong = entrant('W', s, { pairs: 10, wrongAt: 3 });
    const slow = entrant('S', s, { pairs: 6 });
    // Arrives while the first round is being timed: warms up in the turn of the next round.
    let late: Promise<MeasureSession> | null = null;
    const quickRun = quick.runTimed.bind(quick);
    quick.runTimed = (pair) => {
      late ??= sessions.join(key, () => s.baseline, slow);
      return quickRun(pair);
    };
    const first = [quick, wrong].map((e) => sessions.join(key, () => s.baseline, e));
    const [q, w] = await Promise.all(first);
    const l = await late!;
    expect(q!.rounds).toBe(2);
    expect(w!.rounds).toBe(4);
    expect(wrong.pairs.at(-1)!.own.correct).toBe(false);
    expect(l.rounds).toBe(6);
    expect(slow.pairs[0]!.pair).toBe(0);
    // The late one's warm-up came after the first round's runs.
    expect(s.log.indexOf('Sw')).toBeGreaterThan(s.log.indexOf('B'));
    // Its rounds after the others left were its alone: not all of its baseline runs were shared.
    expect(l.sharedBaselineRuns).toBe(3);
    // It joined after the session's first round; the first two were there from the start.
    expect([q!.joinedAtRound, w!.joinedAtRound, l.joinedAtRound]).toEqual([0, 0, 1]);
    expect(describeMeasureSession(l)).toMatch(/joined the running session at round 2/);
    expect(describeMeasureSession(q!)).not.toMatch(/joined/);
  });

  it('holds at most `size` entrants; the next one takes the first free place', async () => {
    const s = script();
    const sessions = createMeasureSessions(createHostTurns(), 5);
    const key = { key: 'k', size: 2 };
    const es = [3, 3, 3].map((pairs, i) => entrant(`E${i}`, s, { pairs }));
    const done = await Promise.all(es.map((e) => sessions.join(key, () => s.baseline, e)));
    expect(done.map((d) => d.entrants)).toEqual([2, 2, 1]);
    // The third warmed up only after the first two had left.
    expect(s.log.indexOf('E2w')).toBeGreaterThan(s.log.lastIndexOf('E0'));
  });

  it('judgings of other benchmarks are other sessions: no shared baseline run', async () => {
    const s1 = script(100);
    const s2 = script(200);
    const sessions = createMeasureSessions(createHostTurns(), 9);
    const [x, y] = await Promise.all([
      sessions.join({ key: 'one', size: 8 }, () => s1.baseline, entrant('X', s1, { pairs: 3 })),
      sessions.join({ key: 'two', size: 8 }, () => s2.baseline, entrant('Y', s2, { pairs: 3 })),
    ]);
    for (const d of [x!, y!] as MeasureSession[])
      expect(d).toMatchObject({ entrants: 1, sharedBaselineRuns: 0 });
    expect(s1.log.filter((v) => v === 'B')).toHaveLength(3);
    expect(s2.log.filter((v) => v === 'B')).toHaveLength(3);
  });

  it('a baseline that fails ends every judging in the session as the judge’s fault', async () => {
    const s = script(100, 2);
    const sessions = createMeasureSessions(createHostTurns(), 11);
    const key = { key: 'k', size: 8 };
    const results = await Promise.allSettled(
      ['A', 'B1'].map((n) => sessions.join(key, () => s.baseline, entrant(n, s, { pairs: 9 }))),
    );
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(JudgeError);
    }
  });

  it('a cancelled judging leaves before the next round; the others are not disturbed', async () => {
    const s = script();
    const sessions = createMeasureSessions(createHostTurns(), 13);
    const key = { key: 'k', size: 8 };
    const controller = new AbortController();
    const stays = entrant('A', s, { pairs: 5 });
    const cancelled = entrant('C', s, { pairs: 50, signal: controller.signal });
    const original = cancelled.afterRound.bind(cancelled);
    cancelled.afterRound = (b, o, p, first) => {
      if (p === 1) controller.abort();
      return original(b, o, p, first);
    };
    const [a, c] = await Promise.allSettled(
      [stays, cancelled].map((e) => sessions.join(key, () => s.baseline, e)),
    );
    expect(a!.status).toBe('fulfilled');
    expect((a as PromiseFulfilledResult<MeasureSession>).value.rounds).toBe(5);
    expect((c as PromiseRejectedResult).reason).toBeInstanceOf(JudgingCancelledError);
    expect(cancelled.pairs).toHaveLength(2);
  });

  describe('under a planned session (the final evaluation’s)', () => {
    /** Rounds 2, 0 and 1 in a rotation; a run named in `disturbed` starts its round over once. */
    function plan(log: string[], disturbed: Set<string>) {
      const todo = [2, 0, 1];
      const kept: Array<{ number: number; runs: string[]; discarded: number }> = [];
      const p: RoundPlan<Run> = {
        oneJob: true,
        next: () => todo.shift() ?? null,
        order: (number, entrants) => {
          const all = [null, ...entrants];
          const shift = number % all.length;
          return [...all.slice(shift), ...all.slice(0, shift)];
        },
        wallMs: (r) => r.stats.wallMs,
        startOver: () => disturbed.delete(log.at(-1)!),
        kept: (number, runs, discarded) => {
          kept.push({ number, runs: runs.map((r) => r.side), discarded });
        },
      };
      return { plan: p, kept };
    }

    it('times the plan’s rounds in its order and starts a disturbed round over', async () => {
      const s = script();
      const { plan: p, kept } = plan(s.log, new Set(['A']));
      const a = entrant('A', s, { pairs: Infinity });
      const b = entrant('B1', s, { pairs: Infinity });
      await runSession({ plan: p, baseline: s.baseline, entrants: [a, b] });
      expect(kept.map((k) => [k.number, k.discarded])).toEqual([
        [2, 1],
        [0, 0],
        [1, 0],
      ]);
      // Round 2 rotated by two: B1, the baseline, A; its first attempt ended at A's run.
      expect(s.log.slice(0, 3)).toEqual(['Bw', 'Aw', 'B1w']);
      expect(s.log.slice(3, 6)).toEqual(['B1', 'B', 'A']);
      expect(s.log.slice(6, 9)).toEqual(['B1', 'B', 'A']);
      expect(kept[1]!.runs).toEqual(['baseline', 'solution', 'solution']);
      // Only kept rounds are pairs.
      expect(a.pairs).toHaveLength(3);
    });

    it('an entrant whose run fails leaves, even from an attempt started over; the baseline goes on alone', async () => {
      const s = script();
      const { plan: p, kept } = plan(s.log, new Set(['F']));
      const failing = entrant('F', s, { pairs: Infinity, wrongAt: 0 });
      failing.leaves = (own) => !own.correct;
      await runSession({ plan: p, baseline: s.baseline, entrants: [failing] });
      // Round 2 of [baseline, F] (rotated by 0): F's run fails and is disturbed, so the attempt is
      // discarded and F leaves at once; the round is timed again without it, and so are the rest.
      expect(s.log).toEqual(['Bw', 'Fw', 'B', 'F', 'B', 'B', 'B']);
      expect(kept.map((k) => [k.runs, k.discarded])).toEqual([
        [['baseline'], 1],
        [['baseline'], 0],
        [['baseline'], 0],
      ]);
      expect(failing.pairs).toHaveLength(0);
    });

    it('a plan with no round left ends at once, running nothing', async () => {
      const s = script();
      const empty: RoundPlan<Run> = { ...plan(s.log, new Set()).plan, next: () => null };
      const a = entrant('A', s, { pairs: Infinity });
      // Without an end for the entrants that never got a round, this would wait forever.
      await runSession({ plan: empty, baseline: s.baseline, entrants: [a] });
      expect(s.log).toEqual([]);
      expect(a.pairs).toHaveLength(0);
    }, 10_000);

    it('an entrant’s run that throws ends the whole session', async () => {
      const s = script();
      const { plan: p } = plan(s.log, new Set());
      const broken = entrant('X', s, { pairs: Infinity });
      broken.runTimed = () => Promise.reject(new JudgeError('the sandbox failed'));
      await expect(
        runSession({
          plan: p,
          baseline: s.baseline,
          entrants: [broken, entrant('A', s, { pairs: 9 })],
        }),
      ).rejects.toThrow('the sandbox failed');
    });
  });
});
