// A measure session: the judgings of one challenge, target and benchmark definition waiting on one
// host are timed together. Each round runs the baseline once and every entrant once, in an order
// drawn at random per round (randomized interleaved trials: no program always runs right after
// another), and every entrant pairs its own run with the round's baseline run. Each entrant keeps
// its own tally, stop rule, disturbance evidence and result; it leaves the session as soon as it
// is done (precise, budget spent, its output wrong, the host too busy for it), and a judging that
// arrives while a session runs joins at the next round. A lone judging is a session of one.
//
// The final evaluation is the same engine under another round plan (runner/final/final-session.ts):
// its entrants are the finalists, its rounds the job's numbered ones in a rotated order, a round
// with a disturbed run is timed again, and every round is checkpointed as it is kept.
//
// The engine knows nothing of sandboxes: an entrant times its own program and decides after each
// round (measure.ts makes entrants of judgings); the baseline's runs are the session's.
import { randomBytes } from 'node:crypto';
import type { MeasureSession, Run } from '../../contracts';
import { createRng, type Rng } from '../../lib/core/stats/rng';
import { JudgingCancelledError } from './errors';
import { soloTurns, type HostTurns } from './host-turns';

/** The session's baseline: how its runs are made (the first entrant's timing context). */
export interface SessionBaseline<R = Run> {
  warmups: number;
  /** Its runs stop when this aborts; absent, once every entrant in the round's has (a shutdown). */
  signal?: AbortSignal;
  /**
   * One run of the baseline, in the scratch folder of an entrant in the round (undefined when none
   * is in); throws when the baseline itself fails (the judge's fault).
   */
  run(kind: Run['kind'], signal: AbortSignal, workDir: string | undefined): Promise<R>;
}

/** A judging in a session (or a finalist in a final evaluation). */
export interface SessionEntrant<R = Run> {
  signal?: AbortSignal;
  /** Its scratch folder (there until it has left). */
  workDir: string;
  /** Its untimed warm-up runs, in the turn of its first round: false when its program failed. */
  warmUp(): Promise<boolean>;
  /** Its timed run in a round (`pair`: its rounds so far). */
  runTimed(pair: number): Promise<R>;
  /**
   * The round's pair (the baseline run is the entrant's own copy; `baselineFirst`: it ran before
   * the entrant's run): true when the entrant is done. Called outside the turn.
   */
  afterRound(baseline: R, own: R, pair: number, baselineFirst: boolean): boolean;
  /**
   * Whether its run ends its part, whether the round is kept or timed again (a finalist whose run
   * failed); it leaves once the attempt is over. Absent: only afterRound decides.
   */
  leaves?(own: R): boolean;
}

export interface SessionKey {
  /** Everything the baseline's runs depend on: only judgings with equal keys share a session. */
  key: string;
  /** Most entrants timed together (runPolicy.sessionSize); more wait for a place. */
  size: number;
}

/**
 * What decides a session's rounds. A measure session's go on while it has entrants, in an order
 * drawn at random; a final evaluation's are the job's numbered rounds, rotated and checkpointed.
 */
export interface RoundPlan<R> {
  /** The next round's number, or null: the session ends (`entrants`: those in or waiting). */
  next(entrants: number): number | null;
  /**
   * The order of an attempt at round `number` (asked at every attempt): the entrants in it, in
   * order of arrival, and null for the baseline.
   */
  order(number: number, entrants: readonly SessionEntrant<R>[]): Array<SessionEntrant<R> | null>;
  /** What a run cost the host (ms). */
  wallMs(run: R): number;
  /**
   * After each run of an attempt: true to discard the attempt and time the round again (a final
   * evaluation's disturbed round); throws to end the session (the host too busy).
   */
  startOver?(run: R): boolean;
  /** A round kept, outside the turn: its runs in the order they ran, and the attempts discarded. */
  kept?(number: number, runs: R[], discardedAttempts: number): void | Promise<void>;
  /**
   * The session is one job (a final evaluation): every planned round is timed, by the baseline
   * alone if need be, and an entrant's run that throws ends the session, not only its part.
   */
  oneJob?: boolean;
}

interface Member<R> {
  entrant: SessionEntrant<R>;
  pair: number;
  rounds: number;
  sharedBaselineRuns: number;
  /** Rounds the session had kept before this entrant's first (null until it has one). */
  joinedAtRound: number | null;
  hostMs: number;
  aloneHostMs: number;
  /** Most entrants in a round while it was in. */
  peers: number;
  resolve: (session: MeasureSession) => void;
  reject: (error: unknown) => void;
}

/** The sessions of one host (one runner process), by key. */
export interface MeasureSessions {
  /**
   * Times `entrant` in the session of its key (started now if there is none: a lone judging never
   * waits for others). Resolves once it has left, with what the session says of it.
   */
  join(
    key: SessionKey,
    baseline: () => SessionBaseline,
    entrant: SessionEntrant,
  ): Promise<MeasureSession>;
}

export function createMeasureSessions(turns: HostTurns, seed?: number): MeasureSessions {
  const open = new Map<string, Session<Run>>();
  return {
    join(key, baseline, entrant) {
      let session = open.get(key.key);
      if (!session) {
        const rng = createRng(seed ?? randomBytes(4).readUInt32LE(0));
        session = new Session(key.size, randomPlan(rng), baseline(), turns);
        open.set(key.key, session);
        const started = session;
        void started.done.finally(() => {
          if (open.get(key.key) === started) open.delete(key.key);
        });
      }
      return session.add(entrant);
    },
  };
}

/** A measure session's rounds: as long as it has entrants, each in an order drawn at random. */
function randomPlan(rng: Rng): RoundPlan<Run> {
  let round = 0;
  return {
    next: (entrants) => (entrants > 0 ? round++ : null),
    order: (_number, entrants) => shuffle<SessionEntrant | null>([null, ...entrants], rng),
    wallMs: (run) => run.stats.wallMs,
  };
}

/**
 * A session with all its entrants from the start and its own plan (a final evaluation), on a host
 * of its own unless `turns` say otherwise. Resolves once every planned round is done; rejects with
 * what ended it early (the baseline failed, the plan threw, an entrant's run threw).
 */
export async function runSession<R>(options: {
  plan: RoundPlan<R>;
  baseline: SessionBaseline<R>;
  entrants: SessionEntrant<R>[];
  turns?: HostTurns;
}): Promise<void> {
  const { plan, baseline, entrants } = options;
  const session = new Session(
    Math.max(1, entrants.length),
    plan,
    baseline,
    options.turns ?? soloTurns,
  );
  // Their own ends (excluded, cancelled) are the plan's to record; the session's end is returned.
  const parts = Promise.allSettled(entrants.map((e) => session.add(e)));
  const ended = await session.done;
  await parts;
  if (ended) throw ended.error;
}

class Session<R> {
  readonly id = randomBytes(6).toString('hex');
  private readonly active: Member<R>[] = [];
  private readonly waiting: Member<R>[] = [];
  private baselineWarm = false;
  /** Resolves when the session ends: with what ended it early, if anything did. */
  readonly done: Promise<{ error: unknown } | null>;
  /** The attempt being timed: each entrant's run, the baseline's, and all of them in order. */
  private roundRuns = new Map<Member<R>, R>();
  private roundBaseline: R | null = null;
  private ranInOrder: R[] = [];
  /** Rounds kept so far, every entrant's together. */
  private roundsKept = 0;
  /** Who ran before the round's baseline run. */
  private beforeBaseline = new Set<Member<R>>();

  constructor(
    private readonly size: number,
    private readonly plan: RoundPlan<R>,
    private readonly baseline: SessionBaseline<R>,
    private readonly turns: HostTurns,
  ) {
    this.done = this.loop();
  }

  add(entrant: SessionEntrant<R>): Promise<MeasureSession> {
    return new Promise((resolve, reject) => {
      this.waiting.push({
        entrant,
        pair: 0,
        rounds: 0,
        sharedBaselineRuns: 0,
        joinedAtRound: null,
        hostMs: 0,
        aloneHostMs: 0,
        peers: 1,
        resolve,
        reject,
      });
    });
  }

  private async loop(): Promise<{ error: unknown } | null> {
    // The first entrants are added right after the session is made: wait for them.
    await Promise.resolve();
    for (;;) {
      const number = this.plan.next(this.active.length + this.waiting.length);
      if (number === null) break;
      try {
        const discarded = await this.turns.turn(() => this.timeRound(number));
        if (discarded === null) continue;
        this.settleRound();
        await this.plan.kept?.(number, this.ranInOrder, discarded);
      } catch (error) {
        // The baseline failed (or the plan ended it): no entrant can have a ratio.
        for (const m of [...this.active.splice(0), ...this.waiting.splice(0)]) m.reject(error);
        return { error };
      }
    }
    // A planned session's end: whoever is still in is done, and so is whoever never got a round
    // (a final job whose rounds were all checkpointed before: it must end, not wait forever).
    for (const m of [...this.active.splice(0), ...this.waiting.splice(0)]) this.settle(m);
    return null;
  }

  /**
   * One round, inside a turn: newcomers warm up, then everyone runs once in the plan's order, as
   * often as the plan starts the round over. The attempts discarded; null when nothing was timed.
   */
  private async timeRound(number: number): Promise<number | null> {
    this.dropCancelled();
    // The baseline's warm-up first, so every run an entrant records follows the one before it.
    if (!this.baselineWarm && (this.waiting.length || this.plan.oneJob)) {
      const first = this.waiting.slice(0, this.size);
      for (let i = 0; i < this.baseline.warmups; i++)
        await this.baseline.run('warmup', this.baselineSignal(first), first[0]?.entrant.workDir);
      this.baselineWarm = true;
    }
    await this.admit();
    if (!this.active.length && !this.plan.oneJob) return null;
    for (let discarded = 0; ; discarded++) if (await this.attempt(number)) return discarded;
  }

  /** One attempt at a round: true when it is kept. */
  private async attempt(number: number): Promise<boolean> {
    this.roundRuns = new Map();
    this.roundBaseline = null;
    this.ranInOrder = [];
    this.beforeBaseline = new Set();
    const members = [...this.active];
    const signal = this.baselineSignal(members);
    const workDir = members[0]?.entrant.workDir;
    const byEntrant = new Map(members.map((m) => [m.entrant, m]));
    for (const entrant of this.plan.order(
      number,
      members.map((m) => m.entrant),
    )) {
      const member = entrant && byEntrant.get(entrant)!;
      const run = member ? await this.runEntrant(member) : await this.baselineRun(signal, workDir);
      if (run === null) continue;
      this.ranInOrder.push(run);
      if (this.plan.startOver?.(run)) {
        for (const [m, own] of this.roundRuns) if (m.entrant.leaves?.(own)) this.leave(m);
        return false;
      }
    }
    return true;
  }

  private async baselineRun(signal: AbortSignal, workDir: string | undefined): Promise<R> {
    this.roundBaseline = await this.baseline.run('timed', signal, workDir);
    return this.roundBaseline;
  }

  /** An entrant's run of the attempt; null when it threw (it has left with the error). */
  private async runEntrant(member: Member<R>): Promise<R | null> {
    if (!this.roundBaseline) this.beforeBaseline.add(member);
    try {
      const run = await member.entrant.runTimed(member.pair);
      this.roundRuns.set(member, run);
      return run;
    } catch (error) {
      if (this.plan.oneJob) throw error;
      this.leave(member, error);
      return null;
    }
  }

  /** Every entrant's pair of the round; those done leave with their share of the session. */
  private settleRound(): void {
    const baseline = this.roundBaseline;
    if (!baseline) return;
    const members = this.active.filter((m) => this.roundRuns.has(m));
    const baselineMs = this.plan.wallMs(baseline);
    const share = baselineMs / Math.max(1, members.length);
    for (const member of members) {
      const own = this.roundRuns.get(member)!;
      const ownMs = this.plan.wallMs(own);
      member.joinedAtRound ??= this.roundsKept;
      member.rounds++;
      member.peers = Math.max(member.peers, members.length);
      if (members.length > 1) member.sharedBaselineRuns++;
      member.hostMs += ownMs + share;
      member.aloneHostMs += ownMs + baselineMs;
      // Each entrant's tally marks its pairs' runs (discarded or not): its own copy of the baseline run.
      const done = member.entrant.afterRound(
        structuredClone(baseline),
        own,
        member.pair,
        !this.beforeBaseline.has(member),
      );
      member.pair++;
      if (done || member.entrant.leaves?.(own)) this.leave(member);
    }
    this.roundsKept++;
  }

  /** Newcomers (up to the session's size) warm up in this turn and are timed from this round on. */
  private async admit(): Promise<void> {
    while (this.waiting.length && this.active.length < this.size) {
      const member = this.waiting.shift()!;
      try {
        if (!(await member.entrant.warmUp())) {
          this.settle(member);
          continue;
        }
      } catch (error) {
        member.reject(error);
        if (this.plan.oneJob) throw error;
        continue;
      }
      this.active.push(member);
    }
  }

  /** Entrants whose judging was cancelled leave before the round. */
  private dropCancelled(): void {
    for (const m of [...this.active, ...this.waiting])
      if (m.entrant.signal?.aborted) this.leave(m, new JudgingCancelledError());
  }

  /**
   * The baseline's own signal, else one aborted once every one of `members` is (a shutdown): the
   * baseline run stops too.
   */
  private baselineSignal(members: Member<R>[]): AbortSignal {
    if (this.baseline.signal) return this.baseline.signal;
    const controller = new AbortController();
    const check = () => {
      if (members.every((m) => m.entrant.signal?.aborted)) controller.abort();
    };
    for (const m of members) m.entrant.signal?.addEventListener('abort', check, { once: true });
    check();
    return controller.signal;
  }

  private leave(member: Member<R>, error?: unknown): void {
    for (const list of [this.active, this.waiting]) {
      const at = list.indexOf(member);
      if (at >= 0) list.splice(at, 1);
    }
    if (error !== undefined) member.reject(error);
    else this.settle(member);
  }

  private settle(member: Member<R>): void {
    member.resolve({
      id: this.id,
      entrants: member.peers,
      rounds: member.rounds,
      sharedBaselineRuns: member.sharedBaselineRuns,
      joinedAtRound: member.joinedAtRound ?? this.roundsKept,
      hostMs: member.hostMs,
      aloneHostMs: member.aloneHostMs,
    });
  }
}

/** A random permutation (Fisher–Yates). */
function shuffle<T>(items: T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
