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
    `  ${label}  ${e.basis === 'cpu-time' ? 'CPU-time ' : ''}${e.speedup.toFixed(3)} ` +
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

/** Per round of a session of n: the baseline's run shared n ways, each entrant's own run. */
function projection(together: Judged[], options: CostOptions): string[] {
  const runs = together.flatMap((j) => j.result.stages.measure?.runs ?? []);
  const timed = (side: string) =>
    runs.filter((r) => r.kind === 'timed' && r.side === side).map((r) => r.stats.wallMs);
  const b = timed('baseline');
  const s = timed('solution');
  const pairs = together.flatMap((j) => j.result.stages.measure?.estimate?.pairs ?? []);
  if (!b.length || !s.length || !pairs.length) return [];
  const [bMs, sMs, n] = [median(b), median(s), median(pairs)];
  const per = (entrants: number) => n * (bMs / entrants + sMs);
  const scale = (256 << 20) / options.sizeBytes;
  return [
    `  per round here: baseline ${sec(bMs)}, solution ${sec(sMs)}; ${n} pairs per verdict`,
    `  measure host time per verdict: alone ${sec(n * (bMs + sMs))}, in a session of 5 ${sec(per(5))}, of 8 ${sec(per(8))}`,
    `  at 256 MiB (times × ${scale.toFixed(1)}): alone ${sec(scale * n * (bMs + sMs))}, in a session of 5 ${sec(scale * per(5))}, of 10 ${sec(scale * per(10))}`,
  ];
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
      ...projection(queued, options),
    );
  }
  console.log(`\nsummary\n${summary.join('\n')}`);
}
