// The chaos drill's plan, drawn from one seed: which patches are submitted and when, which faults
// strike and at what moment. Pure, so a seed replays the same plan (the processes' own timing still
// varies from run to run: the plan says when a fault fires, not what it finds in flight).
import { randomBytes } from 'node:crypto';

export const FAULT_KINDS = [
  'kill-runner',
  'kill-scorer',
  'second-scorer',
  'redis-flush',
  'postgres-restart',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Targets a runner kill picks from; the drill runs one runner per target. */
export const CHAOS_TARGETS = ['linux-intel', 'windows-amd'] as const;
export type ChaosTarget = (typeof CHAOS_TARGETS)[number];

/**
 * Patches of the wordcount challenge's self-judging folder (challenges/wordcount/submissions):
 * verdict families that are cheap to judge on tiny inputs, under Wine too. posix-mmap is accepted
 * on Linux and settled BUILD_ERROR for windows-amd by the pre-check; a build error cancels the
 * other target's judging.
 */
export const CHAOS_PATCHES = [
  'accepted/fast-hash-table',
  'accepted/baseline-copy',
  'accepted/header-and-source',
  'accepted/posix-mmap',
  'build_error/syntax-error',
  'wrong_answer/ordering-ties-ignore-case',
  'runtime_error/exit-code-3',
] as const;

export type ChaosPatch = (typeof CHAOS_PATCHES)[number];

/**
 * The CI drill's patches: what costs Wine least. A build error and a crash on the first test end
 * a judging early on both targets; posix-mmap is measured on Linux and settled by the pre-check on
 * windows-amd; fast-hash-table is measured on both (wrong answers and the baseline copy run every
 * edge case under Wine: the long drill has them).
 */
export const CI_CHAOS_PATCHES: readonly ChaosPatch[] = [
  'accepted/fast-hash-table',
  'accepted/posix-mmap',
  'build_error/syntax-error',
  'runtime_error/exit-code-3',
];

export interface PlannedSubmission {
  patch: ChaosPatch;
  /** Milliseconds after the drill starts. */
  atMs: number;
}

export interface PlannedFault {
  kind: FaultKind;
  /** Fires once this many judgings have ended (settled or cancelled)… */
  afterSettled: number;
  /** …plus this delay, so a fault lands anywhere in a judging, not only at its end. */
  delayMs: number;
  /** kill-runner: whose runner. */
  target?: ChaosTarget;
  /** How long the killed process (or PostgreSQL) stays down before it is started again. */
  downMs: number;
}

export interface ChaosPlan {
  seed: string;
  submissions: PlannedSubmission[];
  faults: PlannedFault[];
}

export interface PlanOptions {
  seed: string;
  submissions: number;
  faults: number;
  /** Submissions arrive within this window (ms); default 20 s. */
  arrivalMs?: number;
  /** The patches drawn from (default: all of CHAOS_PATCHES). */
  patches?: readonly ChaosPatch[];
}

/** A fresh seed to print (and replay with PERFJUDGE_CHAOS_SEED / --seed). */
export function newSeed(): string {
  return randomBytes(4).toString('hex');
}

/** mulberry32 over an FNV-1a hash of the seed: small, fast and the same on every machine. */
function seededRandom(seed: string): () => number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(seed, 'utf8')) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  let state = h;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Fisher–Yates with the plan's random numbers. */
function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The plan of a seed. Every fault kind strikes at least once when there are as many faults as
 * kinds (the rest are drawn at random); each waits for a random number of ended judgings (fewer
 * than all of them: work is still in flight) plus a random delay of up to 4 s. One scorer with
 * another environment is enough: a second `second-scorer` draw becomes a scorer kill.
 */
export function planChaos(options: PlanOptions): ChaosPlan {
  const random = seededRandom(options.seed);
  const arrivalMs = options.arrivalMs ?? 20_000;
  const submissions = Array.from({ length: options.submissions }, (_, i) => ({
    // The first arrives at once; the others anywhere in the window, in order.
    patch: pick(random, options.patches ?? CHAOS_PATCHES),
    atMs: i === 0 ? 0 : Math.round(random() * arrivalMs),
  })).sort((a, b) => a.atMs - b.atMs);
  const judgings = options.submissions * CHAOS_TARGETS.length;
  const kinds = shuffled(random, FAULT_KINDS).slice(0, options.faults);
  while (kinds.length < options.faults) kinds.push(pick(random, FAULT_KINDS));
  let secondScorers = 0;
  const faults = kinds.map((drawn): PlannedFault => {
    const kind = drawn === 'second-scorer' && secondScorers++ > 0 ? 'kill-scorer' : drawn;
    return {
      kind,
      afterSettled: Math.floor(random() * Math.max(1, judgings - 2)),
      delayMs: Math.round(random() * 4_000),
      ...(kind === 'kill-runner' ? { target: pick(random, CHAOS_TARGETS) } : {}),
      downMs: 500 + Math.round(random() * 2_500),
    };
  });
  faults.sort((a, b) => a.afterSettled - b.afterSettled || a.delayMs - b.delayMs);
  return { seed: options.seed, submissions, faults };
}
