// Benchmarks of the judge itself (figures only, nothing asserted: this machine is shared and noisy).
//   npm run bench -- judge reproducibility [--size 16MiB] [--repeat 5] [--load none,bursty,full,pinned]
//                                          [--cpu-fallback] [--max-pairs N] [--precision 0.01]
//                                          [--host-drift 0.014]
//   npm run bench -- judge ladder [--size 64MiB] [--long-pairs 15]
//   npm run bench -- judge overhead [--size 64MiB]
//   npm run bench -- judge profile [--size 64MiB] [--max-pairs N]   (the profile stage's share of a
//                                   judging, twice: the baseline's profiles computed, then cached)
//   npm run bench -- judge cost [--size 32MiB] [--count 5] [--targets linux-intel,windows-amd]
//                               [--patch 1.1x-whole-file-views] [--no-profile] [--max-pairs N] [--precision p]
//                               (a Windows target takes only the portable steps: no posixOnly in
//                               bench/ladder/steps.ts)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  parseByteSize,
  TARGET_IDS,
  type JudgingResult,
  type ProgressEvent,
  type TargetId,
} from '../contracts';
import { REPO_ROOT } from '../lib/core/config/env';
import { loadChallenge, type Challenge } from '../lib/core/challenge/load-manifest';
import { makePatch, solutionSource } from '../lib/core/challenge/solution-tree';
import { cpuVendor } from '../runner/host/fingerprint';
import { judge } from '../runner/judge/judge';
import {
  LADDER,
  TYPICAL_STEP,
  ladderPatch,
  ladderStep,
  ladderStepFor,
  prepareLadderStep,
} from './ladder/steps';
import { createSandbox } from '../runner/sandbox';
import { DEFAULT_CONFIDENCE, excessDrift, median } from '../lib/core/stats';
import { describeNoiseFloor, describeSideDrift, noiseFloor } from './noise-floor';
import { judgeCost } from './judge-cost';
import { describeProjection, projectProfileShare } from './profile-projection';
import type { HostSharing } from '../runner/judge/judging-context';

const DATA_DIR = path.join(REPO_ROOT, '.data', 'bench');
const sandbox = createSandbox('bubblewrap');

export const LOADS = ['none', 'bursty', 'full', 'pinned'] as const;
export type Load = (typeof LOADS)[number];

interface Options {
  sizeBytes: number;
  /** Whether --size was given (reproducibility defaults to 16 MiB, the others to 64 MiB). */
  sized: boolean;
  repeat: number;
  longPairs: number;
  loads: Load[];
  /** Let a host too busy for wall time give a labelled CPU-time estimate (the manifest's option). */
  cpuFallback: boolean;
  maxPairs: number | null;
  /** The run policy's target half-width (a fraction): pairs are timed until it is reached. */
  precision: number | null;
  /** The run policy's host drift (relative sd between judgings) to include in every interval. */
  hostDrift: number | null;
  /** cost: judgings per condition, the targets, the ladder patch, the profile stage. */
  count: number;
  targets: TargetId[];
  patch: string;
  profile: boolean;
}

const DEFAULT_OPTIONS: Options = {
  sizeBytes: 64 << 20,
  sized: false,
  repeat: 5,
  longPairs: 15,
  loads: ['none'],
  cpuFallback: false,
  maxPairs: null,
  precision: null,
  hostDrift: null,
  count: 5,
  targets: ['linux-intel'],
  patch: TYPICAL_STEP,
  profile: true,
};

/** A comma-separated list of names, each one of `allowed`. */
function namesOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T[] {
  const names = (value ?? '').split(',');
  const bad = names.find((n) => !(allowed as readonly string[]).includes(n));
  if (bad !== undefined) throw new Error(`${flag}: "${bad}" is not one of ${allowed.join(', ')}`);
  return names as T[];
}

/** Options that stand alone. */
const FLAGS = new Map<string, (options: Options) => void>([
  ['--cpu-fallback', (o) => void (o.cpuFallback = true)],
  ['--no-profile', (o) => void (o.profile = false)],
]);

/** Options followed by their value: each checks it and sets its field. */
const VALUED = new Map<string, (options: Options, value: string | undefined) => void>([
  [
    '--size',
    (o, value) => {
      const bytes = value ? parseByteSize(value) : undefined;
      if (!bytes) throw new Error(`--size: "${value}" is not a size`);
      o.sizeBytes = bytes;
      o.sized = true;
    },
  ],
  ['--load', (o, value) => void (o.loads = namesOf('--load', value, LOADS))],
  [
    '--max-pairs',
    (o, value) => {
      o.maxPairs = Number(value);
      if (!Number.isInteger(o.maxPairs) || o.maxPairs < 5)
        throw new Error(`--max-pairs: "${value}" is not a whole number of at least 5`);
    },
  ],
  [
    '--precision',
    (o, value) => {
      o.precision = Number(value);
      if (!(o.precision > 0 && o.precision < 0.5))
        throw new Error(`--precision: "${value}" is not a fraction between 0 and 0.5`);
    },
  ],
  [
    '--host-drift',
    (o, value) => {
      o.hostDrift = Number(value);
      if (!(o.hostDrift >= 0 && o.hostDrift <= 0.2))
        throw new Error(`--host-drift: "${value}" is not a fraction between 0 and 0.2`);
    },
  ],
  [
    '--count',
    (o, value) => {
      o.count = Number(value);
      if (!Number.isInteger(o.count) || o.count < 1 || o.count > 10)
        throw new Error(`--count: "${value}" is not a whole number from 1 to 10`);
    },
  ],
  ['--targets', (o, value) => void (o.targets = namesOf('--targets', value, TARGET_IDS))],
  [
    '--patch',
    (o, value) => {
      if (!/^[a-z0-9][a-z0-9.-]*$/.test(value ?? ''))
        throw new Error(`--patch: "${value}" is not the name of a ladder step (bench/ladder)`);
      o.patch = value!;
    },
  ],
  ['--repeat', (o, value) => void (o.repeat = Number(value))],
  ['--long-pairs', (o, value) => void (o.longPairs = Number(value))],
]);

function parseArgs(args: string[]): Options {
  const options: Options = { ...DEFAULT_OPTIONS };
  for (let i = 0; i < args.length; i++) {
    const flag = FLAGS.get(args[i]!);
    const valued = VALUED.get(args[i]!);
    if (flag) flag(options);
    else if (valued) valued(options, args[++i]);
    else throw new Error(`unknown option ${args[i]}`);
  }
  return options;
}

async function judgeOnce(
  challenge: Challenge,
  patchText: string,
  options: Options,
  mode?: 'reproducibility',
  where: {
    target?: TargetId;
    sharing?: HostSharing;
    onProgress?: (event: ProgressEvent) => void;
    onLog?: (line: string) => void;
  } = {},
): Promise<JudgingResult> {
  const target = where.target ?? 'linux-intel';
  return judge({
    ...(where.onProgress ? { onProgress: where.onProgress } : {}),
    ...(where.onLog ? { onLog: where.onLog } : {}),
    challenge,
    target,
    patchText,
    sandbox,
    dataDir: DATA_DIR,
    benchmark: { seed: 'bench-judge', sizeBytes: options.sizeBytes, rareSeparators: false },
    benchmarkSeedIsSecret: false,
    publicInput: null,
    devMode: (await cpuVendor()) !== challenge.manifest.targets[target]?.cpuVendor,
    ...(where.sharing ? { sharing: where.sharing } : {}),
    runPolicy: {
      // Absent, not undefined: the judge spreads this over the manifest's policy.
      ...(options.maxPairs ? { maxPairs: options.maxPairs } : {}),
      ...(options.precision ? { precision: options.precision } : {}),
      ...(options.hostDrift !== null ? { hostDrift: options.hostDrift } : {}),
      // Explicit either way: a development-mode host would fall back by default.
      disturbance: {
        ...challenge.manifest.runPolicy.disturbance,
        cpuTimeFallback: options.cpuFallback,
      },
    },
    // Only the speedup is benchmarked here: the profile stage would add a minute per judging.
    profile: mode === 'reproducibility' || !options.profile ? false : undefined,
  });
}

const fmt = (x: number) => x.toFixed(3);

function describe(result: JudgingResult): string {
  const e = result.stages.measure?.estimate;
  if (!e) return `${result.verdict}: ${result.message}`;
  return `${fmt(e.speedup)} [${fmt(e.ciLow)}, ${fmt(e.ciHigh)}] ±${(e.halfWidthRel * 100).toFixed(2)}% after ${e.pairs} pairs (${e.stopReason})`;
}

/**
 * Time the judge spent beyond building and running programs: the builds, every test and timed
 * run, and the profile stage (which is only builds and untimed runs) count as work.
 */
function overhead(result: JudgingResult): { total: number; work: number } {
  const build = result.stages.build;
  const buildMs =
    (build?.solution.durationMs ?? 0) +
    (build && !build.baseline.cached ? build.baseline.durationMs : 0);
  const testMs = (result.stages.test?.cases ?? []).reduce((sum, c) => sum + c.wallMs, 0);
  const runMs = (result.stages.measure?.runs ?? []).reduce((sum, r) => sum + r.stats.wallMs, 0);
  const profileMs = result.stageDurationsMs.profile ?? 0;
  return { total: result.durationMs, work: buildMs + testMs + runMs + profileMs };
}

/**
 * Load on every CPU, started and stopped by the bench: one busy loop per CPU, running throughout
 * ('full') or for 2 s of every 5 ('bursty': the loops are stopped and continued with signals);
 * 'pinned' is 'full' with each loop pinned to its CPU (taskset), so the judge's CPU is never left
 * free by the scheduler moving a loop away: what a host whose judge CPU is shared looks like.
 */
export function startLoad(load: Load): () => void {
  if (load === 'none') return () => undefined;
  const loop = [process.execPath, '-e', 'for (;;) {}'];
  const loops: ChildProcess[] = os.cpus().map((_, cpu) => {
    const [command, ...args] = load === 'pinned' ? ['taskset', '-c', String(cpu), ...loop] : loop;
    return spawn(command!, args, { stdio: 'ignore' });
  });
  const signal = (sig: NodeJS.Signals) => loops.forEach((p) => p.kill(sig));
  let timer: NodeJS.Timeout | undefined;
  if (load === 'bursty') {
    const cycle = () => {
      signal('SIGCONT');
      timer = setTimeout(() => {
        signal('SIGSTOP');
        timer = setTimeout(cycle, 3000);
      }, 2000);
    };
    cycle();
  }
  return () => {
    clearTimeout(timer);
    signal('SIGCONT');
    signal('SIGKILL');
  };
}

interface JudgingFigures {
  result: JudgingResult;
  seconds: number;
}

function conditionTable(
  load: Load,
  judgings: JudgingFigures[],
  quietMedian: number | null,
): string[] {
  const lines: string[] = [];
  const estimates = judgings.flatMap((j) =>
    j.result.stages.measure?.estimate ? [j.result.stages.measure.estimate] : [],
  );
  const speedups = estimates.map((e) => e.speedup);
  const mid = speedups.length ? median(speedups) : null;
  lines.push(`load ${load}:`);
  lines.push(
    '  #  verdict       basis      speedup  interval          ±      pairs  discarded  cpu-time speedup  judging',
  );
  judgings.forEach((j, i) => {
    const m = j.result.stages.measure;
    const e = m?.estimate;
    const cpu = m?.cpuTimeEstimate;
    const covers =
      e && mid !== null ? (e.ciLow <= mid && mid <= e.ciHigh ? '' : ' (misses median)') : '';
    lines.push(
      `  ${i + 1}  ${j.result.verdict.padEnd(12)}  ${(e?.basis ?? '-').padEnd(9)}  ${e ? fmt(e.speedup).padStart(7) : '      -'}  ${e ? `[${fmt(e.ciLow)}, ${fmt(e.ciHigh)}]`.padEnd(16) : '-'.padEnd(16)}  ${e ? `${(e.halfWidthRel * 100).toFixed(1)}%`.padStart(5) : '    -'}  ${String(e?.pairs ?? '-').padStart(5)}  ${String(m?.disturbance?.discardedPairs ?? '-').padStart(9)}  ${cpu ? `${fmt(cpu.speedup)} [${fmt(cpu.ciLow)}, ${fmt(cpu.ciHigh)}]` : '-'.padEnd(21)}  ${j.seconds.toFixed(0)} s${covers}`,
    );
    if (!e) lines.push(`     ${j.result.message.slice(0, 300)}`);
  });
  if (speedups.length) {
    const spread = Math.max(...speedups) / Math.min(...speedups) - 1;
    const allContain = estimates.every((e) => e.ciLow <= mid! && mid! <= e.ciHigh);
    lines.push(
      `  speedups ${speedups.map(fmt).join(' ')}; median ${fmt(mid!)}; spread (max/min − 1) ${(spread * 100).toFixed(2)}% (target ${load === 'none' ? '≤ 2%' : load === 'bursty' ? '≤ 3%' : 'none: a refusal, or within 3% of the quiet median'})`,
    );
    lines.push(
      `  every interval contains the median of the ${speedups.length}: ${allContain ? 'yes' : 'NO'}${
        estimates.some((e) => e.hostDrift)
          ? ` (with the host drift of ${((estimates[0]?.hostDrift?.sdRel ?? 0) * 100).toFixed(1)}% included; from the pairs alone: ${
              estimates.every((e) => {
                const d = e.hostDrift;
                return !d || (d.statCiLow <= mid! && mid! <= d.statCiHigh);
              })
                ? 'yes'
                : 'NO'
            })`
          : ''
      }`,
    );
    // What these judgings varied beyond their own intervals: the runPolicy.hostDrift this host needs.
    const drift = excessDrift(
      estimates.map((e) => ({
        speedup: e.speedup,
        statHalfWidthRel: e.hostDrift?.statHalfWidthRel ?? e.halfWidthRel,
        confidence: DEFAULT_CONFIDENCE,
      })),
    );
    lines.push(
      `  drift between these judgings beyond their own intervals: ${(drift * 100).toFixed(2)}% sd (runPolicy.hostDrift for this host)`,
    );
    if (quietMedian !== null && load !== 'none')
      lines.push(
        `  median vs the quiet median ${fmt(quietMedian)}: ${((mid! / quietMedian - 1) * 100).toFixed(2)}%`,
      );
  }
  const refused = judgings.filter((j) => !j.result.stages.measure?.estimate).length;
  if (refused)
    lines.push(`  ${refused} of ${judgings.length} judgings gave no speedup (see the message)`);
  const seconds = judgings.map((j) => j.seconds);
  lines.push(
    `  wall time per judging: ${seconds.map((x) => x.toFixed(0)).join(' ')} s (median ${median(seconds).toFixed(0)} s)`,
  );
  lines.push(...describeSideDrift(judgings));
  const target = load === 'none' ? 0.02 : 0.03;
  lines.push(...describeNoiseFloor(noiseFloor(judgings, target), target));
  return lines;
}

async function reproducibility(challenge: Challenge, options: Options): Promise<void> {
  const patch = await ladderPatch(TYPICAL_STEP);
  const sizeBytes = options.sized ? options.sizeBytes : 16 << 20;
  const opts = { ...options, sizeBytes };
  console.log(
    `reproducibility: the ${TYPICAL_STEP} patch judged ${options.repeat} times per load on ${sizeBytes >> 20} MiB` +
      ` (${os.cpus().length} CPUs; cpuTimeFallback ${options.cpuFallback ? 'on' : 'off'}` +
      `${options.maxPairs ? `, maxPairs ${options.maxPairs}` : ''}` +
      `${options.precision ? `, precision ±${(options.precision * 100).toFixed(1)}%` : ''}` +
      `${options.hostDrift !== null ? `, hostDrift ${(options.hostDrift * 100).toFixed(1)}%` : ''})`,
  );
  // Built once before any load, so every condition's judgings do the same work.
  await judgeOnce(challenge, patch, { ...opts, maxPairs: 5 }, 'reproducibility');
  const tables: string[] = [];
  let quietMedian: number | null = null;
  for (const load of options.loads) {
    const stop = startLoad(load);
    const judgings: JudgingFigures[] = [];
    try {
      for (let i = 0; i < options.repeat; i++) {
        const t0 = performance.now();
        const result = await judgeOnce(challenge, patch, opts, 'reproducibility');
        judgings.push({ result, seconds: (performance.now() - t0) / 1000 });
        const e = result.stages.measure?.estimate;
        console.log(
          `  ${load} #${i + 1}: ${describe(result)}${e?.basis === 'cpu-time' ? ' [CPU-TIME ESTIMATE]' : ''}; ${judgings.at(-1)!.seconds.toFixed(0)} s`,
        );
      }
    } finally {
      stop();
    }
    // Every run of every judging, for a look afterwards (the table shows only summaries).
    const saved = path.join(DATA_DIR, `reproducibility-${load}-${new Date().toISOString()}.json`);
    await writeFile(saved, JSON.stringify(judgings));
    const table = [...conditionTable(load, judgings, quietMedian), `  every run: ${saved}`];
    console.log(table.join('\n'));
    tables.push(...table);
    if (load === 'none') {
      const speedups = judgings.flatMap((j) => j.result.stages.measure?.estimate?.speedup ?? []);
      if (speedups.length) quietMedian = median(speedups);
    }
  }
  console.log(`\nsummary\n${tables.join('\n')}`);
}

/** The true ratio: many alternating runs of the two binaries, the median of the pairwise ratios. */
async function longRunRatio(challenge: Challenge, name: string, options: Options): Promise<number> {
  const step = await prepareLadderStep({
    challenge,
    id: name,
    sizeBytes: options.sizeBytes,
    sandbox,
    dataDir: DATA_DIR,
  });
  try {
    const cpu = os.cpus().length - 1;
    const ratios: number[] = [];
    for (let i = 0; i < options.longPairs; i++)
      ratios.push((await step.time('baseline', cpu)) / (await step.time('solution', cpu)));
    return median(ratios);
  } finally {
    await step.close();
  }
}

async function ladder(challenge: Challenge, options: Options): Promise<void> {
  const rungs = LADDER.map((step) => step.id);
  console.log(
    `ladder on ${options.sizeBytes >> 20} MiB (true ratio: median of ${options.longPairs} separate alternating pairs)`,
  );
  const identical = await judgeOnce(
    challenge,
    await makePatch({ 'wordcount.cpp': await solutionSource(await baselineBody(challenge)) }),
    options,
  );
  console.log(`  baseline (identical binary): ${describe(identical)}`);
  const estimates: number[] = [];
  let covered = 0;
  for (const rung of rungs) {
    const result = await judgeOnce(challenge, await ladderPatch(rung), options);
    const truth = await longRunRatio(challenge, rung, options);
    const e = result.stages.measure?.estimate;
    const covers = e ? e.ciLow <= truth && truth <= e.ciHigh : false;
    if (covers) covered++;
    if (e) estimates.push(e.speedup);
    console.log(
      `  ${rung.padEnd(22)} judged ${describe(result)}; true ${fmt(truth)} (measured directly: ${fmt(ladderStep(rung).expected)}); ${covers ? 'covered' : 'NOT covered'}`,
    );
  }
  const ordered = estimates.every((x, i) => i === 0 || estimates[i - 1]! < x);
  console.log(
    `  order ${ordered ? 'right' : 'WRONG'}; ${covered}/${rungs.length} intervals cover the true ratio`,
  );
}

async function baselineBody(challenge: Challenge): Promise<string> {
  const source = await readFile(path.join(challenge.templateDir, 'wordcount.cpp'), 'utf8');
  return source.slice(source.indexOf('#else') + '#else'.length, source.lastIndexOf('#endif'));
}

async function overheadOnly(challenge: Challenge, options: Options): Promise<void> {
  const result = await judgeOnce(challenge, await ladderPatch(TYPICAL_STEP), options);
  const o = overhead(result);
  console.log(
    `overhead: judge wall ${(o.total / 1000).toFixed(2)} s vs build + runs ${(o.work / 1000).toFixed(2)} s: ${((o.total / o.work - 1) * 100).toFixed(1)}% extra (target ≤ 5%)`,
  );
  console.log(
    `  stages: ${Object.entries(result.stageDurationsMs)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`)
      .join(', ')}`,
  );
}

/**
 * The profile stage's cost: one judging with the baseline's profiles computed (its cache emptied
 * first), one reusing them, as contest judgings do after the first on a host. Prints the stage's
 * share of the judging, each part's seconds (the stage's partsMs) and the load average.
 */
async function profileCost(challenge: Challenge, options: Options): Promise<void> {
  await rm(path.join(DATA_DIR, 'baseline-profiles'), { recursive: true, force: true });
  const patch = await ladderPatch(TYPICAL_STEP);
  const s = (ms: number | undefined) => `${((ms ?? 0) / 1000).toFixed(1)} s`;
  console.log(
    `profile cost: ${TYPICAL_STEP} on ${options.sizeBytes >> 20} MiB` +
      `${options.maxPairs ? `, at most ${options.maxPairs} pairs` : ''}`,
  );
  for (const label of ['baseline profiles computed', 'baseline profiles cached']) {
    const load = os.loadavg()[0]!.toFixed(1);
    const built: string[] = [];
    // The program runs under perf record and perf script's unwinding: what grows with the input.
    let growingMemory: { runMs: number; scriptMs: number } | undefined;
    const result = await judgeOnce(challenge, patch, options, undefined, {
      onLog: (line) => {
        if (line.startsWith('cachegrind: built')) built.push(line);
        const grows = /^perf record: program run ([\d.]+) s, perf script ([\d.]+) s/.exec(line);
        if (grows) {
          built.push(line);
          growingMemory = {
            runMs: (growingMemory?.runMs ?? 0) + 1000 * Number(grows[1]),
            scriptMs: (growingMemory?.scriptMs ?? 0) + 1000 * Number(grows[2]),
          };
        }
      },
    });
    const profileMs = result.stageDurationsMs.profile ?? 0;
    const measure = result.stages.measure;
    console.log(
      `\n${label}: ${result.verdict}${result.verdict === 'ACCEPTED' ? '' : ` (${result.message.slice(0, 200)})`}; profile ${s(profileMs)} of ${s(result.durationMs)} judged ` +
        `(${((100 * profileMs) / result.durationMs).toFixed(1)}%); measure ${s(result.stageDurationsMs.measure)} ` +
        `(${measure?.estimate?.pairs ?? 0} pairs; medians: baseline ${s(measure?.baseline?.medianMs)}, ` +
        `solution ${s(measure?.solution?.medianMs)}); load average ${load} → ${os.loadavg()[0]!.toFixed(1)}`,
    );
    const parts = result.stages.profile?.partsMs ?? {};
    console.log(
      `  parts: ${Object.entries(parts)
        .map(([part, ms]) => `${part} ${s(ms)}`)
        .join(', ')}${built.length ? ` (${built.join('; ')})` : ''}`,
    );
    const sampled = result.stages.profile?.sampled;
    console.log(
      `  sampled: ${sampled ? `${sampled.baseline.samples} + ${sampled.solution.samples} samples` : result.stages.profile?.notes.join('; ')}`,
    );
    const failures = result.stages.profile?.notes.filter((n) => /failed/.test(n)) ?? [];
    if (failures.length) console.log(`  failed parts: ${failures.join('; ')}`);
    // At the official size, with the manifest's pair budget: its fewest pairs (the stage's worst
    // case, each further pair adds to the judging only) and its most.
    const { runPolicy, inputs } = challenge.manifest;
    for (const pairs of [runPolicy.minPairs, runPolicy.maxPairs]) {
      const projected = projectProfileShare(
        result,
        inputs.benchmark.size,
        options.sizeBytes,
        runPolicy,
        pairs,
        { baselineProfiled: label === 'baseline profiles computed', growingMemory },
      );
      console.log(`  projected ${describeProjection(projected)}`);
    }
  }
}

export default async function run(args: string[]): Promise<void> {
  const [mode = 'reproducibility', ...rest] = args;
  const options = parseArgs(rest);
  const challenge = await loadChallenge('wordcount');
  if (mode === 'reproducibility') await reproducibility(challenge, options);
  else if (mode === 'ladder') await ladder(challenge, options);
  else if (mode === 'overhead') await overheadOnly(challenge, options);
  else if (mode === 'profile') await profileCost(challenge, options);
  else if (mode === 'cost') {
    // Every target checked before any judging: a step a target cannot build fails here, not after
    // the other targets' half hour.
    for (const target of options.targets) {
      const spec = challenge.manifest.targets[target];
      if (!spec) throw new Error(`--targets: ${challenge.manifest.slug} has no target ${target}`);
      ladderStepFor(options.patch, target, spec.os);
    }
    const patch = await ladderPatch(options.patch);
    await judgeCost(challenge, {
      count: options.count,
      targets: options.targets,
      sizeBytes: options.sized ? options.sizeBytes : 32 << 20,
      patchName: options.patch,
      judgeOnce: (target, sharing) =>
        judgeOnce(
          challenge,
          patch,
          { ...options, sizeBytes: options.sized ? options.sizeBytes : 32 << 20 },
          undefined,
          { target, sharing },
        ),
    });
  } else throw new Error(`unknown mode ${mode} (reproducibility, ladder, overhead, profile, cost)`);
}
