// A measure session: the judgings of one challenge, target and benchmark definition waiting on one
// host are timed together. Each round runs the baseline once and every entrant once, in an order
// drawn at random per round (randomized interleaved trials: no program always runs right after
// another), and every entrant pairs its own run with the round's baseline run. Each entrant keeps
// its own tally, stop rule, disturbance evidence and result; it leaves the session as soon as it
// is done (precise, budget spent, its output wrong, the host too busy for it), and a judging that
// arrives while a session runs joins at the next round. A lone judging is a session of one.
//
// The engine knows nothing of sandboxes: an entrant times its own program and decides after each
// round (measure.ts makes entrants of judgings); the baseline's runs are the session's.
import { randomBytes } from 'node:crypto';
import type { MeasureSession, Run } from '../../contracts';
import { createRng, type Rng } from '../../lib/core/stats/rng';
import { JudgingCancelledError } from './errors';
import type { HostTurns } from './host-turns';

/** The session's baseline: how its runs are made (the first entrant's timing context). */
export interface SessionBaseline {
  warmups: number;
  /**
   * One run of the baseline, in the scratch folder of an entrant in the round; throws when the
   * baseline itself fails (the judge's fault).
   */
  run(kind: Run['kind'], signal: AbortSignal, workDir: string): Promise<Run>;
}

/** A judging in a session. */
export interface SessionEntrant {
  signal?: AbortSignal;
  /** Its scratch folder (there until it has left). */
  workDir: string;
  /** Its untimed warm-up runs, in the turn of its first round: false when its program failed. */
  warmUp(): Promise<boolean>;
  /** Its timed run in a round (`pair`: its rounds so far). */
  runTimed(pair: number): Promise<Run>;
  /**
   * The round's pair (the baseline run is the entrant's own copy; `baselineFirst`: it ran before
   * the entrant's run): true when the entrant is done. Called outside the turn.
   */
  afterRound(baseline: Run, own: Run, pair: number, baselineFirst: boolean): boolean;
}

export interface SessionKey {
  /** Everything the baseline's runs depend on: only judgings with equal keys share a session. */
  key: string;
  /** Most entrants timed together (runPolicy.sessionSize); more wait for a place. */
  size: number;
}

interface Member {
  entrant: SessionEntrant;
  pair: number;
  rounds: number;
  sharedBaselineRuns: number;
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
  const open = new Map<string, Session>();
  return {
    join(key, baseline, entrant) {
      let session = open.get(key.key);
      if (!session) {
        session = new Session(key, baseline(), turns, seed);
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

/** What a run cost the host. */
function runMs(run: Run): number {
  return run.stats.wallMs;
}

class Session {
  readonly id = randomBytes(6).toString('hex');
  private readonly active: Member[] = [];
  private readonly waiting: Member[] = [];
  private readonly rng: Rng;
  private baselineWarm = false;
  readonly done: Promise<void>;
  /** The round being timed: each entrant's run, and the baseline's. */
  private roundRuns = new Map<Member, Run>();
  private roundBaseline: Run | null = null;
  /** Who ran before the round's baseline run. */
  private beforeBaseline = new Set<Member>();

  constructor(
    private readonly key: SessionKey,
    private readonly baseline: SessionBaseline,
    private readonly turns: HostTurns,
    seed?: number,
  ) {
    this.rng = createRng(seed ?? randomBytes(4).readUInt32LE(0));
    this.done = this.loop();
  }

  add(entrant: SessionEntrant): Promise<MeasureSession> {
    return new Promise((resolve, reject) => {
      this.waiting.push({
        entrant,
        pair: 0,
        rounds: 0,
        sharedBaselineRuns: 0,
        hostMs: 0,
        aloneHostMs: 0,
        peers: 1,
        resolve,
        reject,
      });
    });
  }

  private async loop(): Promise<void> {
    // The first entrant is added right after the session is made: wait for it.
    await Promise.resolve();
    while (this.active.length || this.waiting.length) {
      try {
        await this.turns.turn(() => this.timeRound());
      } catch (error) {
        // The baseline failed: no entrant can have a ratio (the judge's or host's fault).
        for (const m of [...this.active.splice(0), ...this.waiting.splice(0)]) m.reject(error);
        return;
      }
      this.settleRound();
    }
  }

  /** One round, inside a turn: newcomers warm up, then everyone runs once in a random order. */
  private async timeRound(): Promise<void> {
    this.roundRuns = new Map();
    this.roundBaseline = null;
    this.beforeBaseline = new Set();
    this.dropCancelled();
    // The baseline's warm-up first, so every run an entrant records follows the one before it.
    if (!this.baselineWarm && this.waiting.length) {
      const first = this.waiting.slice(0, this.key.size);
      for (let i = 0; i < this.baseline.warmups; i++)
        await this.baseline.run('warmup', this.baselineSignal(first), first[0]!.entrant.workDir);
      this.baselineWarm = true;
    }
    await this.admit();
    if (!this.active.length) return;
    const signal = this.baselineSignal(this.active);
    const workDir = this.active[0]!.entrant.workDir;
    const order = shuffle<Member | null>([null, ...this.active], this.rng);
    for (const member of order) {
      if (member === null) {
        this.roundBaseline = await this.baseline.run('timed', signal, workDir);
        continue;
      }
      if (!this.roundBaseline) this.beforeBaseline.add(member);
      try {
        this.roundRuns.set(member, await member.entrant.runTimed(member.pair));
      } catch (error) {
        this.leave(member, error);
      }
    }
  }

  /** Every entrant's pair of the round; those done leave with their share of the session. */
  private settleRound(): void {
    const baseline = this.roundBaseline;
    if (!baseline) return;
    const members = this.active.filter((m) => this.roundRuns.has(m));
    const share = runMs(baseline) / Math.max(1, members.length);
    for (const member of members) {
      const own = this.roundRuns.get(member)!;
      member.rounds++;
      member.peers = Math.max(member.peers, members.length);
      if (members.length > 1) member.sharedBaselineRuns++;
      member.hostMs += runMs(own) + share;
      member.aloneHostMs += runMs(own) + runMs(baseline);
      // Each entrant's tally marks its pairs' runs (discarded or not): its own copy of the baseline run.
      const done = member.entrant.afterRound(
        structuredClone(baseline),
        own,
        member.pair,
        !this.beforeBaseline.has(member),
      );
      member.pair++;
      if (done) this.leave(member);
    }
  }

  /** Newcomers (up to the session's size) warm up in this turn and are timed from this round on. */
  private async admit(): Promise<void> {
    while (this.waiting.length && this.active.length < this.key.size) {
      const member = this.waiting.shift()!;
      try {
        if (!(await member.entrant.warmUp())) {
          this.settle(member);
          continue;
        }
      } catch (error) {
        member.reject(error);
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

  /** Aborted once every one of `members` is (a shutdown): the baseline run stops too. */
  private baselineSignal(members: Member[]): AbortSignal {
    const controller = new AbortController();
    const check = () => {
      if (members.every((m) => m.entrant.signal?.aborted)) controller.abort();
    };
    for (const m of members) m.entrant.signal?.addEventListener('abort', check, { once: true });
    check();
    return controller.signal;
  }

  private leave(member: Member, error?: unknown): void {
    for (const list of [this.active, this.waiting]) {
      const at = list.indexOf(member);
      if (at >= 0) list.splice(at, 1);
    }
    if (error !== undefined) member.reject(error);
    else this.settle(member);
  }

  private settle(member: Member): void {
    member.resolve({
      id: this.id,
      entrants: member.peers,
      rounds: member.rounds,
      sharedBaselineRuns: member.sharedBaselineRuns,
      hostMs: member.hostMs,
      aloneHostMs: member.aloneHostMs,
    });
  }
}

/** A random permutation (Fisher–Yates). */
export function shuffle<T>(items: T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
