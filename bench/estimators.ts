// Which estimator gives the narrowest honest interval per pair, and which allocation per host
// second: the judge's candidates side by side on the recorded pairs of seven real solutions and in
// the simulated shared VM. Pure computation (no timing), so it may run on a busy host.
//
//   npm run bench -- estimators [--data <judged-pairs.jsonl>] [--experiments 1000]
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { REPO_ROOT } from '../lib/core/config/env';
import {
  createRng,
  median,
  shouldStop,
  simulatePairs,
  speedupEstimate,
  type IntervalMethod,
  type NoiseModel,
  type Rng,
  type TimedPair,
} from '../lib/core/stats';

const METHODS: IntervalMethod[] = ['order-statistic', 'signed-rank', 'trimmed-mean', 'bootstrap'];
const LABEL: Record<IntervalMethod, string> = {
  'order-statistic': 'median of ratios, sign-test interval',
  'signed-rank': 'Hodges–Lehmann, signed-rank interval',
  'trimmed-mean': '20% trimmed mean, t interval',
  bootstrap: 'median of ratios, bootstrap',
};
const TARGET = 0.01;
const POLICY = { minPairs: 5, maxPairs: 30, precision: TARGET };
const MAX_DATA_BYTES = 16 * 1024 * 1024;

const recordedSchema = z.object({
  solution: z.string().max(100),
  pairs: z
    .array(
      z.object({
        baselineWallMs: z.number().positive(),
        solutionWallMs: z.number().positive(),
        baselineCpuMs: z.number().positive(),
        solutionCpuMs: z.number().positive(),
      }),
    )
    .min(6)
    .max(10_000),
});
type Recorded = z.infer<typeof recordedSchema>;

interface Options {
  data: string;
  experiments: number;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    data: defaultData(),
    experiments: 1000,
  };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    if (value === undefined) throw new Error(`${args[i]} needs a value`);
    if (args[i] === '--data') options.data = value;
    else if (args[i] === '--experiments') options.experiments = Number(value);
    else throw new Error(`unknown option ${args[i]} (--data, --experiments)`);
    i++;
  }
  if (!Number.isInteger(options.experiments) || options.experiments < 50)
    throw new Error(`--experiments must be a whole number of at least 50`);
  return options;
}

/** The shared data folder beside the main checkout (../shared), or beside a worktree's parent. */
function defaultData(): string {
  const candidates = [
    path.join(REPO_ROOT, '..', 'shared', 'data', 'judged-pairs-32MiB.jsonl'),
    path.join(REPO_ROOT, '..', '..', 'shared', 'data', 'judged-pairs-32MiB.jsonl'),
  ];
  return candidates.find((file) => existsSync(file)) ?? candidates[0]!;
}

async function loadRecorded(file: string): Promise<Recorded[]> {
  const text = await readFile(file, 'utf8');
  if (text.length > MAX_DATA_BYTES) throw new Error(`${file}: larger than ${MAX_DATA_BYTES} bytes`);
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      const parsed = recordedSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${file} line ${i + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
}

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
/** Pairs for ±target, from the width at n pairs: a half-width shrinks as 1/√n. */
const pairsFor = (halfWidth: number, n: number) => Math.ceil(n * (halfWidth / TARGET) ** 2);

function resample<T>(rng: Rng, xs: readonly T[], n: number): T[] {
  return Array.from({ length: n }, () => xs[rng.int(xs.length)]!);
}

/**
 * On recorded pairs: each method's half-width on all the pairs, the pairs it would need for ±1%,
 * and its coverage when judgings of `n` pairs are drawn from the recorded ones (with replacement),
 * of the method's own value on all the pairs — the truth of that population.
 */
function recordedTable(recorded: Recorded[], options: Options): void {
  console.log(`\nrecorded pairs (${recorded.length} solutions, wall time)`);
  const header = ['solution', 'n', ...METHODS.map((m) => m)];
  const rows: string[][] = [];
  const ratiosToMedian: Record<IntervalMethod, number[]> = {
    'order-statistic': [],
    'signed-rank': [],
    'trimmed-mean': [],
    bootstrap: [],
  };
  const coverageHits: Record<IntervalMethod, number> = {
    'order-statistic': 0,
    'signed-rank': 0,
    'trimmed-mean': 0,
    bootstrap: 0,
  };
  const draws = Math.max(50, Math.round(options.experiments / 4));
  const rng = createRng(26);
  for (const r of recorded) {
    const pairs: TimedPair[] = r.pairs.map((p) => ({
      baselineMs: p.baselineWallMs,
      solutionMs: p.solutionWallMs,
    }));
    const all = Object.fromEntries(
      METHODS.map((m) => [m, speedupEstimate(pairs, { method: m })]),
    ) as Record<IntervalMethod, ReturnType<typeof speedupEstimate>>;
    rows.push([
      r.solution,
      String(pairs.length),
      ...METHODS.map((m) => {
        const e = all[m];
        return `${e.speedup.toFixed(3)} ±${pct(e.halfWidthRel)} (${pairsFor(e.halfWidthRel, pairs.length)})`;
      }),
    ]);
    for (const m of METHODS)
      ratiosToMedian[m].push(all[m].halfWidthRel / all['order-statistic'].halfWidthRel);
    for (let d = 0; d < draws; d++) {
      const sample = resample(rng, pairs, 15);
      for (const m of METHODS) {
        const e = speedupEstimate(sample, { method: m, seed: d, resamples: 500 });
        if (e.ciLow <= all[m].speedup && all[m].speedup <= e.ciHigh) coverageHits[m]++;
      }
    }
  }
  printTable(header, rows);
  console.log('  cell: estimate ±half-width (pairs for ±1%, extrapolated as 1/√n)');
  console.log(
    `  median half-width relative to the median of ratios: ${METHODS.map((m) => `${m} ${median(ratiosToMedian[m]).toFixed(2)} (pairs ×${(median(ratiosToMedian[m]) ** 2).toFixed(2)})`).join(', ')}`,
  );
  console.log(
    `  coverage of 15-pair judgings resampled from the recorded pairs (${draws} per solution): ${METHODS.map((m) => `${m} ${pct(coverageHits[m] / (draws * recorded.length))}`).join(', ')}`,
  );
  console.log(
    `  estimand gap (each method's value on all pairs, relative to the median of ratios): ${recorded
      .map((r) => {
        const pairs = r.pairs.map((p) => ({
          baselineMs: p.baselineWallMs,
          solutionMs: p.solutionWallMs,
        }));
        const base = speedupEstimate(pairs, { method: 'order-statistic' }).speedup;
        const hl = speedupEstimate(pairs, { method: 'signed-rank' }).speedup;
        return `${r.solution} ${((hl / base - 1) * 100).toFixed(2)}%`;
      })
      .join(', ')} (Hodges–Lehmann)`,
  );
}

const SCENARIOS: { name: string; noise: Partial<NoiseModel> }[] = [
  { name: 'shared VM (2% jitter, 10% tails, slow periods)', noise: {} },
  {
    name: 'recorded-like spread (8% jitter, 5% tails)',
    noise: { jitterSigma: 0.08, tailProbability: 0.05 },
  },
  {
    name: 'bimodal layouts (30% of runs +12%)',
    noise: { layoutProbability: 0.3, layoutSlowdown: 0.12 },
  },
  { name: 'bursts (30% of runs +10–100%)', noise: { tailProbability: 0.3, tailMax: 1.0 } },
  {
    name: 'contaminated (5% of runs +50–300%)',
    noise: { tailProbability: 0.05, tailMin: 0.5, tailMax: 3.0 },
  },
  { name: 'drift (+0.2% per run)', noise: { driftPerRun: 0.002 } },
];

/** Coverage at fixed n, half-width at 30 pairs, and coverage through the judge's stopping rule. */
function simulationTable(options: Options): void {
  const trueRatio = 1.5;
  console.log(
    `\nsimulation (true ratio ${trueRatio}, ${options.experiments} judgings per cell; bootstrap at a quarter of that)`,
  );
  const header = [
    'scenario',
    'method',
    'cover n=10',
    'cover n=30',
    '±hw n=30',
    'pairs ±1%',
    'cover stop rule',
    'pairs used',
  ];
  const rows: string[][] = [];
  for (const [s, scenario] of SCENARIOS.entries()) {
    for (const method of METHODS) {
      const experiments =
        method === 'bootstrap' ? Math.round(options.experiments / 4) : options.experiments;
      const rng = createRng(1000 + s);
      let cover10 = 0;
      let cover30 = 0;
      let coverStop = 0;
      let pairsUsed = 0;
      const widths: number[] = [];
      for (let e = 0; e < experiments; e++) {
        const pairs = simulatePairs(rng, {
          pairs: 30,
          baselineMs: 1000,
          trueRatio,
          noise: scenario.noise,
        });
        const covers = (x: ReturnType<typeof speedupEstimate>) =>
          x.ciLow <= trueRatio && trueRatio <= x.ciHigh;
        const est = (n: number) =>
          speedupEstimate(pairs.slice(0, n), { method, seed: e, resamples: 500 });
        if (covers(est(10))) cover10++;
        const at30 = est(30);
        if (covers(at30)) cover30++;
        widths.push(at30.halfWidthRel);
        for (let n = POLICY.minPairs; n <= POLICY.maxPairs; n++) {
          const x = est(n);
          if (shouldStop(x, POLICY).stop) {
            if (covers(x)) coverStop++;
            pairsUsed += n;
            break;
          }
        }
      }
      const hw = median(widths);
      rows.push([
        method === 'order-statistic' ? scenario.name : '',
        method,
        pct(cover10 / experiments),
        pct(cover30 / experiments),
        pct(hw),
        String(pairsFor(hw, 30)),
        pct(coverStop / experiments),
        (pairsUsed / experiments).toFixed(1),
      ]);
    }
  }
  printTable(header, rows);
  console.log(
    `  stop rule: the manifest's policy (min ${POLICY.minPairs}, max ${POLICY.maxPairs} pairs, ±${POLICY.precision * 100}%)`,
  );
}

/**
 * Host seconds per verdict at ±1% for three allocations, from each recorded solution's own
 * spreads and run times (normal theory on log times, z = 1.96):
 * - paired: B S per pair, the estimate from the pairs' log-ratios (the judge today);
 * - unpaired, cheap side more often: nB baseline and nS solution runs in an interleaved order,
 *   the estimate the difference of mean log times; the best split is nS/nB = (σS/σB)·√(cB/cS);
 * - both when a session shares each baseline run among K entrants (cost cB/K per entrant).
 */
function allocationTable(recorded: Recorded[]): void {
  const z = 1.96;
  const target = Math.log1p(TARGET);
  console.log(`\nallocation: host seconds per entrant for ±1% (normal theory on log wall times)`);
  const header = [
    'solution',
    'speedup',
    'σB σS ρ',
    'paired K=1',
    'unpaired K=1 (nS/nB)',
    'paired K=8',
    'unpaired K=8 (nS/nB)',
  ];
  const rows: string[][] = [];
  for (const r of recorded) {
    const lb = r.pairs.map((p) => Math.log(p.baselineWallMs));
    const ls = r.pairs.map((p) => Math.log(p.solutionWallMs));
    const sb = sd(lb);
    const ss = sd(ls);
    const rho = covariance(lb, ls) / (sb * ss);
    const sdDiff = sd(lb.map((x, i) => x - ls[i]!));
    const cb = Math.exp(mean(lb)) / 1000;
    const cs = Math.exp(mean(ls)) / 1000;
    const variance = (target / z) ** 2;
    const paired = (k: number) => (sdDiff ** 2 / variance) * (cb / k + cs);
    const unpaired = (k: number) => {
      const cbk = cb / k;
      const cost = (sb * Math.sqrt(cbk) + ss * Math.sqrt(cs)) ** 2 / variance;
      return { cost, split: (ss / sb) * Math.sqrt(cbk / cs) };
    };
    const u1 = unpaired(1);
    const u8 = unpaired(8);
    rows.push([
      r.solution,
      (cb / cs).toFixed(2),
      `${sb.toFixed(3)} ${ss.toFixed(3)} ${rho.toFixed(2)}`,
      `${paired(1).toFixed(0)} s`,
      `${u1.cost.toFixed(0)} s (${u1.split.toFixed(2)})`,
      `${paired(8).toFixed(0)} s`,
      `${u8.cost.toFixed(0)} s (${u8.split.toFixed(2)})`,
    ]);
  }
  printTable(header, rows);
  console.log(
    '  paired: the log-ratio variance (σB² + σS² − 2ρσBσS) × (cB/K + cS); unpaired at its best split: (σB·√(cB/K) + σS·√cS)². Same estimator efficiency assumed for both.',
  );
  const tenX = { cb: 1.6, cs: 0.16, s: 0.1 };
  for (const rho of [0, 0.35, 0.7]) {
    const vd = 2 * tenX.s ** 2 * (1 - rho);
    const line = [1, 8].map((k) => {
      const paired = vd * (tenX.cb / k + tenX.cs);
      const unpaired = (tenX.s * Math.sqrt(tenX.cb / k) + tenX.s * Math.sqrt(tenX.cs)) ** 2;
      return `K=${k}: unpaired/paired cost ${(unpaired / paired).toFixed(2)}`;
    });
    console.log(`  a 10× solution (σ = 0.10 both sides, ρ = ${rho}): ${line.join(', ')}`);
  }
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
function covariance(xs: readonly number[], ys: readonly number[]): number {
  const mx = mean(xs);
  const my = mean(ys);
  return xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0) / (xs.length - 1);
}
function sd(xs: readonly number[]): number {
  return Math.sqrt(covariance(xs, xs));
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

export default async function run(args: string[]): Promise<void> {
  const options = parseArgs(args);
  console.log(`estimators: ${METHODS.map((m) => `${m} = ${LABEL[m]}`).join('; ')}`);
  const recorded = await loadRecorded(options.data);
  recordedTable(recorded, options);
  simulationTable(options);
  allocationTable(recorded);
}
