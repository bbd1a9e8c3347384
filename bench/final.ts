// Benchmark of a final evaluation on this machine: the ladder's steps and two submissions, of known
// relative speeds timed in one final session (runner/final/final-session.ts), then ranked
// (lib/core/ranking). Figures only, nothing asserted: this machine is shared and noisy.
//   npm run bench -- final [--size 16MiB] [--rounds 20] [--load none,bursty] [--max-discarded N]
//   npm run bench -- final --builds 3   (the build stage alone: one build at a time against one
//                                        per CPU, alternating, 3 times each, in one run)
// Targets: the true order recovered wherever two finalists differ by more than 5%; the two
// baseline copies tied (with each other, and with the baseline: interval around 1); the session's
// timing phase at most 1.5× the sum of the runs it times.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_FINAL_ERROR_RATE, type FinalSessionResult } from '../contracts/final';
import { parseByteSize } from '../contracts';
import { REPO_ROOT } from '../lib/core/config/env';
import { loadChallenge, type Challenge } from '../lib/core/challenge/load-manifest';
import { rankFinalists, type FinalRanking } from '../lib/core/ranking/final-ranking';
import { rankingInputFromRounds } from '../lib/core/ranking/ranking-input-from-rounds';
import { cpuVendor } from '../runner/host/fingerprint';
import { runFinalSession, type FinalEntrant } from '../runner/final/final-session';
import { createSandbox } from '../runner/sandbox';
import { createTargetPlatform } from '../runner/platform';
import { LOADS, startLoad, type Load } from './judge';
import { LADDER, ladderPatch } from './ladder/steps';

const SUBMISSIONS = path.join(REPO_ROOT, 'challenges', 'wordcount', 'submissions', 'accepted');
const DATA_DIR = path.join(REPO_ROOT, '.data', 'bench');
const TARGET = 'linux-intel';
/** Two finalists whose true speeds differ by more than this must be ranked in that order. */
const SEPARABLE = 0.05;

interface Finalist {
  id: string;
  /** The speedup it is known to have (the ladder's and the examples' own statements). */
  expected: number;
  patch: () => Promise<string>;
}

const submission = (name: string) => () =>
  readFile(path.join(SUBMISSIONS, `${name}.patch`), 'utf8');

const FINALISTS: Finalist[] = [
  // The ladder, each step at its directly measured speedup (bench/ladder/README.md).
  ...LADDER.map((step) => ({ ...step, patch: () => ladderPatch(step.id) })),
  // The same machine code as the baseline.
  { id: 'submitted-copy', expected: 1, patch: submission('baseline-copy') },
  // "About 1.3× when quiet" (its patch's own note).
  { id: 'posix-mmap', expected: 1.3, patch: submission('posix-mmap') },
];

interface Options {
  sizeBytes: number;
  rounds: number;
  loads: Load[];
  maxDiscarded: number | null;
  /** Only the build stage, this many times each way (one at a time, one per CPU); 0: off. */
  builds: number;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    sizeBytes: 16 << 20,
    rounds: 20,
    loads: ['none'],
    maxDiscarded: null,
    builds: 0,
  };
  for (let i = 0; i < args.length; i++) {
    const value = args[++i];
    switch (args[i - 1]) {
      case '--size': {
        const bytes = value ? parseByteSize(value) : undefined;
        if (!bytes) throw new Error(`--size: "${value}" is not a size`);
        options.sizeBytes = bytes;
        break;
      }
      case '--rounds':
        options.rounds = Number(value);
        if (!Number.isInteger(options.rounds) || options.rounds < 1)
          throw new Error(`--rounds: "${value}" is not a whole number of at least 1`);
        break;
      case '--builds':
        options.builds = Number(value);
        if (!Number.isInteger(options.builds) || options.builds < 1)
          throw new Error(`--builds: "${value}" is not a whole number of at least 1`);
        break;
      case '--max-discarded':
        options.maxDiscarded = Number(value);
        if (!Number.isInteger(options.maxDiscarded) || options.maxDiscarded < 0)
          throw new Error(`--max-discarded: "${value}" is not a whole number`);
        break;
      case '--load': {
        const loads = (value ?? '').split(',');
        const bad = loads.find((l) => !(LOADS as readonly string[]).includes(l));
        if (bad !== undefined)
          throw new Error(`--load: "${bad}" is not one of ${LOADS.join(', ')}`);
        options.loads = loads as Load[];
        break;
      }
      default:
        throw new Error(`unknown option ${args[i - 1]}`);
    }
  }
  return options;
}

async function session(
  challenge: Challenge,
  entrants: FinalEntrant[],
  options: Options,
  load: Load,
  parallelBuilds?: number,
): Promise<{ result: FinalSessionResult; wallMs: number }> {
  const target = challenge.manifest.targets[TARGET]!;
  const sandbox = createSandbox('bubblewrap');
  const started = performance.now();
  const result = await runFinalSession({
    challenge,
    target: TARGET,
    platform: await createTargetPlatform({ target, sandbox, dataDir: DATA_DIR }),
    sandbox,
    dataDir: DATA_DIR,
    benchmark: { seed: 'bench-final', sizeBytes: options.sizeBytes, rareSeparators: false },
    entrants,
    sessionId: `bench-${load}`,
    part: 0,
    runnerId: 'bench',
    // The build stage alone still times one round: a session with none would never end.
    rounds: Array.from({ length: options.builds ? 1 : options.rounds }, (_, i) => i),
    parallelBuilds,
    done: [],
    maxDiscardedRounds: options.maxDiscarded ?? 4 * options.rounds,
    memoryBandwidth: null,
    devMode: (await cpuVendor()) !== target.cpuVendor,
    // Explicit: a development-mode host would keep disturbed rounds by default.
    disturbance: { cpuTimeFallback: false },
    onProgress: (p) => {
      if (p.round) process.stdout.write(`  ${load}: ${p.message}\n`);
    },
  });
  return { result, wallMs: performance.now() - started };
}

function rank(challenge: Challenge, result: FinalSessionResult): FinalRanking {
  const out = new Set(result.excluded.map((e) => e.entrantId));
  const formula = challenge.manifest.scoring.formula === 'geomean' ? 'GEOMEAN' : 'SUM';
  return rankFinalists(
    rankingInputFromRounds({
      entrants: FINALISTS.map((f) => f.id).filter((id) => !out.has(id)),
      sessions: [{ target: TARGET, rounds: result.rounds }],
      formula,
      errorRate: DEFAULT_FINAL_ERROR_RATE,
    }),
  );
}

const fmt = (x: number) => x.toFixed(3);
const ties = (others: string[]) =>
  others.length === 0 ? '-' : others.length <= 2 ? others.join(',') : `${others.length} others`;

/** The table per finalist, then the targets' checks. */
function report(
  load: Load,
  result: FinalSessionResult,
  wallMs: number,
  ranking: FinalRanking | Error,
) {
  const lines = [`load ${load}:`];
  const discarded = result.rounds.reduce((sum, r) => sum + r.discardedAttempts, 0);
  lines.push(
    '  finalist        expected  speedup  interval          place  ties                 rounds  disturbed',
  );
  for (const f of FINALISTS) {
    const excluded = result.excluded.find((e) => e.entrantId === f.id);
    const ranked =
      ranking instanceof Error ? undefined : ranking.entrants.find((e) => e.entrant === f.id);
    const fig = ranked?.perTarget[0];
    const disturbed = result.rounds.filter((r) =>
      r.runs.some((run) => run.entrant === f.id && run.evidence?.disturbed.length),
    ).length;
    lines.push(
      `  ${f.id.padEnd(14)}  ${fmt(f.expected).padStart(8)}  ${fig ? fmt(fig.speedup).padStart(7) : '      -'}  ${fig ? `[${fmt(fig.ciLow)}, ${fmt(fig.ciHigh)}]`.padEnd(16) : '-'.padEnd(16)}  ${String(ranked?.place ?? '-').padStart(5)}  ${ties(ranked?.tiedWith ?? []).padEnd(19)}  ${String(fig?.rounds ?? 0).padStart(6)}  ${String(disturbed).padStart(9)}` +
        (excluded ? `  EXCLUDED: ${excluded.reason}` : ''),
    );
  }
  lines.push(
    `  rounds timed ${result.rounds.length}; round attempts discarded as disturbed ${discarded}` +
      (result.judgeError ? `; JUDGE ERROR: ${result.judgeError}` : ''),
  );
  const runs = result.runsWallMs;
  lines.push(
    `  timing phase ${(result.timingMs / 1000).toFixed(1)} s vs the runs' own ${(runs / 1000).toFixed(1)} s: ` +
      `${(result.timingMs / runs).toFixed(2)}× (target ≤ 1.5×); whole session incl. builds ` +
      `${(wallMs / 1000).toFixed(1)} s (${(wallMs / runs).toFixed(2)}×, builds ${(result.buildMs / 1000).toFixed(1)} s)`,
  );
  if (ranking instanceof Error) lines.push(`  ranking: ${ranking.message}`);
  else lines.push(...checks(ranking));
  return lines;
}

function checks(ranking: FinalRanking): string[] {
  const byId = new Map(ranking.entrants.map((e) => [e.entrant, e]));
  let separable = 0;
  let ordered = 0;
  const wrong: string[] = [];
  for (const a of FINALISTS)
    for (const b of FINALISTS) {
      const ra = byId.get(a.id);
      const rb = byId.get(b.id);
      if (!ra || !rb || a.expected <= b.expected * (1 + SEPARABLE)) continue;
      separable++;
      if (ra.place < rb.place) ordered++;
      else wrong.push(`${a.id} vs ${b.id} (places ${ra.place}, ${rb.place})`);
    }
  const copies = ['submitted-copy', 'baseline-copy'].map((id) => byId.get(id));
  const tied = copies.every((c) => c) && copies[0]!.place === copies[1]!.place;
  const aroundOne = copies.filter(
    (c) => c && c.perTarget[0]!.ciLow <= 1 && 1 <= c.perTarget[0]!.ciHigh,
  );
  return [
    `  order: ${ordered} of ${separable} pairs more than ${SEPARABLE * 100}% apart on the right places` +
      (wrong.length ? ` (wrong or tied: ${wrong.join('; ')})` : ''),
    `  the baseline copies share a place: ${tied ? 'yes' : 'NO'}; intervals containing 1: ${aroundOne.length} of 2`,
    ...ranking.warnings.map((w) => `  ranking warning: ${w}`),
  ];
}

/**
 * The build stage alone (a session of one round), one build at a time and one per CPU, in
 * alternating order, `options.builds` times each: the same finalists, in one run, on the same load.
 */
async function buildsOnly(challenge: Challenge, entrants: FinalEntrant[], options: Options) {
  const cpus = os.availableParallelism();
  console.log(`final builds: ${entrants.length} finalists, 1 at a time vs ${cpus} side by side`);
  const seconds: Record<string, number[]> = { '1': [], [cpus]: [] };
  for (let i = 0; i < options.builds; i++)
    for (const parallel of i % 2 ? [cpus, 1] : [1, cpus]) {
      const load = os.loadavg()[0]!.toFixed(1);
      const { result } = await session(challenge, entrants, options, 'none', parallel);
      // A busy host may refuse the round (a judge error after the builds): the builds still count.
      if (!result.buildMs) throw new Error(result.judgeError ?? 'no build stage');
      seconds[parallel]!.push(result.buildMs / 1000);
      console.log(
        `  ${parallel} at a time: ${(result.buildMs / 1000).toFixed(1)} s (load ${load})`,
      );
    }
  const med = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length / 2;
    return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
  };
  const one = med(seconds['1']!);
  const side = med(seconds[cpus]!);
  console.log(
    `  median: ${one.toFixed(1)} s one at a time, ${side.toFixed(1)} s side by side: ` +
      `${(side / one).toFixed(2)}× (load now ${os.loadavg()[0]!.toFixed(1)})`,
  );
}

export default async function run(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const challenge = await loadChallenge('wordcount');
  const entrants = await Promise.all(
    FINALISTS.map(async (f) => ({ id: f.id, patchText: await f.patch() })),
  );
  if (options.builds) return buildsOnly(challenge, entrants, options);
  console.log(
    `final: ${FINALISTS.length} finalists, ${options.rounds} rounds on ${(options.sizeBytes / 2 ** 20).toFixed(0)} MiB, loads ${options.loads.join(', ')}`,
  );
  const tables: string[] = [];
  for (const load of options.loads) {
    const stop = startLoad(load);
    let timed: Awaited<ReturnType<typeof session>>;
    try {
      timed = await session(challenge, entrants, options, load);
    } finally {
      stop();
    }
    let ranking: FinalRanking | Error;
    try {
      ranking = rank(challenge, timed.result);
    } catch (error) {
      ranking = error as Error;
    }
    const table = report(load, timed.result, timed.wallMs, ranking);
    console.log(table.join('\n'));
    tables.push(...table);
  }
  console.log(`\nsummary\n${tables.join('\n')}`);
}
