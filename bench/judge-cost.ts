// What an honest number costs: host seconds per verdict and interval width, for judgings timed
// alone one after another (as every queue was judged before sessions) and for the same judgings
// queued together on one host (one measure session sharing the baseline's runs), side by side in
// one run; each judging's pairs re-estimated by every estimator; the spread of the same patch
// judged again. The two conditions are interleaved (half the lone judgings, the queued ones, the
// other half), so a host that drifts in speed during the run weighs on both alike. Figures only
// (this machine is shared and noisy); `npm run bench -- judge cost`.
import os from 'node:os';
import type { JudgingResult, TargetId } from '../contracts';
import type { Challenge } from '../lib/core/challenge/load-manifest';
import { median, speedupEstimate, type IntervalMethod, type TimedPair } from '../lib/core/stats';
import { createHostTurns } from '../runner/judge/host-turns';
import type { HostSharing } from '../runner/judge/judging-context';
import { createMeasureSessions } from '../runner/judge/measure-session';

export interface CostOptions {
  count: number;
  targets: TargetId[];
  /** One judging of the patch with these options (judge.ts judgeOnce). */
  judgeOnce: (target: TargetId, sharing?: HostSharing) => Promise<JudgingResult>;
  sizeBytes: number;
  patchName: string;
}

interface Judged {
  result: JudgingResult;
  /** From this judging's start (alone) or the queue's start (together) to its verdict. */
  seconds: number;
}

/** The estimators compared on every judging's own clean pairs. */
const ESTIMATORS: Array<{ name: string; method: IntervalMethod }> = [
  { name: 'Hodges–Lehmann of log-ratios, signed-rank CI', method: 'signed-rank' },
  { name: 'median of ratios, order-statistic CI', method: 'order-statistic' },
  { name: '20% trimmed mean of log-ratios, t CI', method: 'trimmed-mean' },
  { name: 'median of ratios, bootstrap CI', method: 'bootstrap' },
];

/** The wall-time pairs the estimate was taken from: timed, clean, correct. */
function usedPairs(result: JudgingResult): TimedPair[] {
  const runs = result.stages.measure?.runs ?? [];
  const byPair = new Map<number, { b?: number; s?: number }>();
  for (const r of runs) {
    if (r.kind !== 'timed' || r.pair === null || r.discarded || !r.correct) continue;
    const p = byPair.get(r.pair) ?? {};
    if (r.side === 'baseline') p.b = r.stats.wallMs;
    else p.s = r.stats.wallMs;
    byPair.set(r.pair, p);
  }
  return [...byPair.values()].flatMap((p) =>
    p.b !== undefined && p.s !== undefined ? [{ baselineMs: p.b, solutionMs: p.s }] : [],
  );
}

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const sec = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 1)} s`;

function row(label: string, j: Judged): string {
  const m = j.result.stages.measure;
  const e = m?.estimate;
  const s = m?.session;
  if (!e || !s) return `  ${label}  ${j.result.verdict}: ${j.result.message.slice(0, 200)}`;
  return (
    `  ${label}  ${j.result.verdict} ${e.basis === 'cpu-time' ? 'CPU-time ' : ''}${e.speedup.toFixed(3)} ` +
    `[${e.ciLow.toFixed(3)}, ${e.ciHigh.toFixed(3)}] ` +
    `±${pct(e.halfWidthRel)}  ${String(e.pairs).padStart(3)} pairs (${e.stopReason})  ` +
    `host ${sec(s.hostMs).padStart(8)} (alone ${sec(s.aloneHostMs)})  ` +
    `${s.sharedBaselineRuns}/${s.rounds} baseline runs shared  verdict after ${j.seconds.toFixed(0)} s  ` +
    `(medians: baseline ${sec(m.baseline?.medianMs ?? NaN)}, solution ${sec(m.solution?.medianMs ?? NaN)})`
  );
}

function spread(judgings: Judged[]): string {
  const speedups = judgings.flatMap((j) => j.result.stages.measure?.estimate?.speedup ?? []);
  if (speedups.length < 2) return 'n/a';
  return `${pct(Math.max(...speedups) / Math.min(...speedups) - 1)} (${speedups.map((x) => x.toFixed(3)).join(' ')})`;
}

function estimatorTable(judgings: Judged[]): string[] {
  const lines = [
    '  estimator (median half-width of the judgings’ own pairs, at their pair counts):',
  ];
  for (const { name, method } of ESTIMATORS) {
    const widths = judgings.map((j) => usedPairs(j.result)).filter((p) => p.length >= 6);
    const value = widths.length
      ? median(widths.map((pairs) => speedupEstimate(pairs, { method }).halfWidthRel))
      : NaN;
    lines.push(`    ${name.padEnd(44)} ±${pct(value)}`);
  }
  return lines;
}

/** Fairness: the same patch judged alone and in a session gives overlapping intervals. */
function overlap(alone: Judged[], queued: Judged[]): string {
  const interval = (j: Judged) => j.result.stages.measure?.estimate ?? null;
  const a = alone.map(interval).filter((e) => e !== null);
  const q = queued.map(interval).filter((e) => e !== null);
  if (!a.length || !q.length) return 'n/a';
  const pairs = a.flatMap((x) => q.map((y) => x.ciLow <= y.ciHigh && y.ciLow <= x.ciHigh));
  return `${pairs.filter(Boolean).length} of ${pairs.length} (alone, queued) pairs of intervals overlap`;
}

function hostSeconds(judgings: Judged[]): number {
  return judgings.reduce((sum, j) => sum + (j.result.stages.measure?.session?.hostMs ?? 0), 0);
}

/** Seconds of a judging (or of the whole queue) not spent in timed runs: builds, tests, warm-ups, set-up. */
interface CostModel {
  /** Per lone judging: its seconds minus its timed runs. */
  fixedAlone: number;
  /** The queue of `count`: its seconds minus the session's timed runs, per entrant. */
  fixedQueued: number;
  /** Median timed run of each side (s) and pairs per verdict. */
  baseline: number;
  solution: number;
  pairs: number;
  count: number;
}

const stage = (j: Judged, name: 'build' | 'test' | 'measure') =>
  (j.result.stageDurationsMs[name] ?? 0) / 1000;

function costModel(alone: Judged[], queued: Judged[], count: number): CostModel | null {
  const runs = [...alone, ...queued].flatMap((j) => j.result.stages.measure?.runs ?? []);
  const timed = (side: string) =>
    runs.filter((r) => r.kind === 'timed' && r.side === side).map((r) => r.stats.wallMs / 1000);
  const pairs = [...alone, ...queued].flatMap(
    (j) => j.result.stages.measure?.estimate?.pairs ?? [],
  );
  const b = timed('baseline');
  const s = timed('solution');
  if (!b.length || !s.length || !pairs.length || !alone.length || !queued.length) return null;
  const host = (j: Judged) => (j.result.stages.measure?.session?.hostMs ?? 0) / 1000;
  const queuedSeconds = Math.max(...queued.map((j) => j.seconds));
  return {
    fixedAlone: median(alone.map((j) => j.seconds - host(j))),
    fixedQueued: (queuedSeconds - queued.reduce((sum, j) => sum + host(j), 0)) / queued.length,
    baseline: median(b),
    solution: median(s),
    pairs: median(pairs),
    count,
  };
}

/**
 * Time to k verdicts alone and queued, for inputs `scale` times this run's and a solution
 * `speedup` times faster than the baseline: the timed runs scale with the input, the rest
 * (builds, tests, set-up per entrant) does not; queued, each round is one baseline run and k
 * solution runs.
 */
function projectRatio(m: CostModel, scale: number, k: number, speedup: number) {
  const b = m.baseline * scale;
  const s = b / speedup;
  const alone = k * (m.fixedAlone + m.pairs * (b + s));
  const queued = k * m.fixedQueued + m.pairs * (b + k * s);
  return { alone, queued, ratio: queued / alone, floor: (speedup + k) / (k * (speedup + 1)) };
}

/** Where the time of each condition goes, and the ratio projected to other sizes, counts and speedups. */
function projection(alone: Judged[], queued: Judged[], options: CostOptions): string[] {
  const m = costModel(alone, queued, options.count);
  if (!m) return [];
  const med = (js: Judged[], name: 'build' | 'test' | 'measure') =>
    median(js.map((j) => stage(j, name))).toFixed(1);
  const measured = m.baseline / m.solution;
  const mib = options.sizeBytes / (1 << 20);
  const lines = [
    `  stages (median s): alone build ${med(alone, 'build')}, test ${med(alone, 'test')}, measure ${med(alone, 'measure')}; ` +
      `queued build ${med(queued, 'build')}, test ${med(queued, 'test')} (side by side, one per CPU)`,
    `  not in timed runs: ${m.fixedAlone.toFixed(1)} s per lone judging, ${m.fixedQueued.toFixed(1)} s per queued entrant ` +
      `(builds, tests, set-up, warm-ups, the runs' own start and check)`,
    `  per round here: baseline ${m.baseline.toFixed(2)} s, solution ${m.solution.toFixed(2)} s (${measured.toFixed(2)}×); ${m.pairs} pairs per verdict`,
    `  projected queued/alone ratio (these fixed costs, runs scaled with the input; floor: no fixed costs at all):`,
  ];
  for (const speedup of [measured, 1.5, 2, 3, 5.5, 10]) {
    const at = (sizeMiB: number, k: number) => projectRatio(m, sizeMiB / mib, k, speedup);
    const [a, b] = [at(32, 5), at(256, 10)];
    lines.push(
      `    ${speedup.toFixed(1).padStart(4)}×: 32 MiB, 5 queued ${a.ratio.toFixed(2)} (floor ${a.floor.toFixed(2)}; target ≤ 0.45)   ` +
        `256 MiB, 10 queued ${b.ratio.toFixed(2)} (floor ${b.floor.toFixed(2)}; target ≤ 0.35)`,
    );
  }
  const ten = (k: number) => m.pairs * ((m.baseline * 256) / mib) * (1 / k + 1 / 10);
  lines.push(
    `  measure host time of a 10× solution at 256 MiB: alone ${ten(1).toFixed(0)} s, in a session of 5 ${ten(5).toFixed(0)} s ` +
      `(target ≤ 120 s), of 10 ${ten(10).toFixed(0)} s`,
  );
  return lines;
}

async function lone(
  options: CostOptions,
  target: TargetId,
  count: number,
  numbered: number,
): Promise<Judged[]> {
  const judged: Judged[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const result = await options.judgeOnce(target);
    judged.push({ result, seconds: (performance.now() - t0) / 1000 });
    console.log(row(`alone #${numbered + i + 1}   `, judged.at(-1)!));
  }
  return judged;
}

async function together(options: CostOptions, target: TargetId): Promise<Judged[]> {
  const turns = createHostTurns();
  const sharing: HostSharing = { turns, sessions: createMeasureSessions(turns) };
  const t0 = performance.now();
  const judged = await Promise.all(
    Array.from({ length: options.count }, async () => {
      const result = await options.judgeOnce(target, sharing);
      return { result, seconds: (performance.now() - t0) / 1000 };
    }),
  );
  judged.forEach((j, i) => console.log(row(`queued #${i + 1}  `, j)));
  return judged;
}

/**
 * Both conditions, interleaved: half the lone judgings (rounded up), the queued ones, the rest
 * alone. A host whose speed drifts steadily over the run then weighs on both alike.
 */
async function interleaved(
  options: CostOptions,
  target: TargetId,
): Promise<{ alone: Judged[]; queued: Judged[]; drift: string }> {
  const before = Math.ceil(options.count / 2);
  console.log(`${target}: ${before} judging(s) alone, one after another`);
  const first = await lone(options, target, before, 0);
  console.log(`${target}: ${options.count} judgings queued together`);
  const queued = await together(options, target);
  console.log(`${target}: ${options.count - before} judging(s) alone, one after another`);
  const last = await lone(options, target, options.count - before, before);
  const baselineMs = (judged: Judged[]) => {
    const medians = judged.flatMap((j) => j.result.stages.measure?.baseline?.medianMs ?? []);
    return medians.length ? median(medians) : NaN;
  };
  const drift =
    `baseline median: alone before ${sec(baselineMs(first))}, queued ${sec(baselineMs(queued))}, ` +
    `alone after ${sec(baselineMs(last))}`;
  return { alone: [...first, ...last], queued, drift };
}

export async function judgeCost(challenge: Challenge, options: CostOptions): Promise<void> {
  console.log(
    `judge cost: ${options.patchName} on ${options.sizeBytes >> 20} MiB, ${options.count} judgings ` +
      `alone and ${options.count} queued together, interleaved, per target (${os.cpus().length} ` +
      `CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ` +
      `policy ${JSON.stringify(challenge.manifest.runPolicy)})`,
  );
  const summary: string[] = [];
  for (const target of options.targets) {
    console.log(`${target}: warming the caches (baseline build, inputs, expected output)`);
    await options.judgeOnce(target);
    const { alone, queued, drift } = await interleaved(options, target);
    const aloneSeconds = alone.reduce((sum, j) => sum + j.seconds, 0);
    const queuedSeconds = Math.max(...queued.map((j) => j.seconds));
    summary.push(
      `${target}:`,
      `  ${options.count} verdicts alone: ${aloneSeconds.toFixed(0)} s; queued together: ${queuedSeconds.toFixed(0)} s ` +
        `→ ratio ${(queuedSeconds / aloneSeconds).toFixed(2)} (target ≤ 0.45)`,
      `  measure host time per verdict: alone ${sec(hostSeconds(alone) / alone.length)}, ` +
        `together ${sec(hostSeconds(queued) / queued.length)}`,
      `  stop reasons: alone ${alone.map((j) => j.result.stages.measure?.estimate?.stopReason ?? j.result.verdict).join(' ')}; ` +
        `together ${queued.map((j) => j.result.stages.measure?.estimate?.stopReason ?? j.result.verdict).join(' ')}`,
      `  re-judging spread of the same patch: alone ${spread(alone.slice(0, 3))} (first 3), together ${spread(queued)}`,
      `  alone vs in a session (fairness): ${overlap(alone, queued)}`,
      `  host drift over the run: ${drift}`,
      ...estimatorTable([...alone, ...queued]),
      ...projection(alone, queued, options),
    );
  }
  console.log(`\nsummary\n${summary.join('\n')}`);
}
