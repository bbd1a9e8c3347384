// The measure stage: one warm-up run each, then baseline and solution alternately (B S B S …)
// pinned to one CPU, every run's files re-warmed before it and its output hashed and checked, every
// run's disturbance evidence kept; pairs with a disturbed run are discarded and timed again, until
// the speedup's interval is as tight as the policy asks or the budget of pairs is spent.
import type {
  Estimate,
  JudgingResult,
  Limits,
  ProgressEvent,
  Run,
  RunEvidence,
  RunPolicy,
  Side,
  TestOutcome,
  TimeSummary,
} from '../../contracts';
import { readFile } from 'node:fs/promises';
import type { Challenge } from '../../lib/challenge/load-manifest';
import { compareCounters } from '../measure/derived-metrics';
import type { Sandbox } from '../sandbox/sandbox';
import {
  describeDiscards,
  disturbanceDecision,
  disturbanceReasons,
  noiseFlags,
  otherTasksMs,
  resolveDisturbance,
  shouldStop,
  speedupEstimate,
  summarize,
  type DisturbanceThresholds,
  type SpeedupEstimate,
  type TimedPair,
} from '../../lib/stats';
import { JudgeError, JudgingCancelledError } from './errors';
import { ensureInput, referenceSha256, warmPageCache, type InputSpec } from './inputs';
import { residentLabel, sharedLibraries } from './resident-files';
import { classifyRun, processStats, runProgram, type ProgramRun } from './run-program';
import type { RunOutcome } from './verdict';

/** More than one CPU's worth of work means threads (or children) working in parallel. */
const SINGLE_THREAD_UTILIZATION = 1.05;

export interface MeasureOptions {
  challenge: Challenge;
  sandbox: Sandbox;
  baselineBinary: string;
  solutionBinary: string;
  identicalBinaries: boolean;
  benchmark: InputSpec;
  dataDir: string;
  workDir: string;
  policy: RunPolicy;
  cpu: number;
  onProgress: (fraction: number, message: string, detail?: ProgressEvent['detail']) => void;
  log: (line: string) => void;
  signal?: AbortSignal;
  /**
   * The programs ran emulated (Windows under Wine): their CPU time includes Wine's own processes, so
   * the single-thread check cannot be made from it, and there are no counters to expect.
   */
  emulated?: boolean;
}

export interface MeasureOutcome {
  stage: NonNullable<JudgingResult['stages']['measure']>;
  /** How each of the solution's runs ended (for the verdict). */
  solutionOutcomes: RunOutcome[];
  warnings: string[];
  /** The host was too busy to time fairly: a judge error (retried), with the runs kept for the record. */
  hostTooBusy?: string;
}

function timeSummary(samples: number[]): TimeSummary | null {
  if (!samples.length) return null;
  const s = summarize(samples);
  return { n: s.n, minMs: s.min, medianMs: s.median, maxMs: s.max, cv: s.cv };
}

export async function measure(options: MeasureOptions): Promise<MeasureOutcome> {
  const { challenge, policy } = options;
  const { limits } = challenge.manifest;
  const warnings: string[] = [];
  const runs: Run[] = [];
  const solutionOutcomes: RunOutcome[] = [];

  options.onProgress(0, 'preparing the benchmark input');
  const input = await ensureInput(challenge, options.benchmark, options.dataDir);
  const stage: MeasureOutcome['stage'] = {
    inputBytes: input.bytes,
    inputSha256: input.sha256,
    cpu: options.cpu,
    runs,
    estimate: null,
    baseline: null,
    solution: null,
    counters: [],
  };
  if (options.identicalBinaries) {
    // Same machine code: nothing to time, and the ratio is exactly one.
    stage.estimate = {
      speedup: 1,
      ciLow: 1,
      ciHigh: 1,
      confidence: 0.95,
      halfWidthRel: 0,
      pairs: 0,
      method: 'identical binaries (not timed)',
      stopReason: 'identical-binaries',
      basis: 'wall-time',
    };
    warnings.push(
      'the solution compiles to the same machine code as the baseline: speedup 1.00, not timed',
    );
    return { stage, solutionOutcomes, warnings };
  }
  options.onProgress(0.02, 'computing the expected output');
  const expectedSha = await referenceSha256(challenge, input, options.dataDir);
  await warmPageCache(input.path);
  const thresholds = resolveDisturbance(policy.disturbance, policy.maxPairs);
  // Re-warmed before every run of either side (the sandbox helper checks with mincore): the input,
  // the side's binary and the libraries the baseline loads, which a solution can see and evict.
  const libraries = await sharedLibraries(options.baselineBinary);
  const residentFor = (binary: string) => [input.path, binary, ...libraries];
  const aslrWarning = await layoutPolicyWarning();
  if (aslrWarning) warnings.push(aslrWarning);

  const runOnce = async (side: Side, kind: Run['kind'], pair: number | null): Promise<Run> => {
    const binary = side === 'baseline' ? options.baselineBinary : options.solutionBinary;
    const { result, outcome, message, correct, evidence } = await timedRun({
      sandbox: options.sandbox,
      binary,
      input: input.path,
      expectedSha256: expectedSha,
      workDir: options.workDir,
      limits,
      cpu: options.cpu,
      resident: residentFor(binary),
      thresholds,
      emulated: options.emulated ?? false,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const run: Run = {
      side,
      kind,
      pair,
      stats: processStats(result),
      outputBytes: result.stdoutBytes,
      outputSha256: result.stdoutSha256,
      correct,
      exitCode: result.exitCode,
      signal: result.signal,
      counters: result.counters,
      evidence,
      discarded: false,
    };
    runs.push(run);
    if (side === 'baseline' && !correct) {
      throw new JudgeError(
        outcome === 'passed'
          ? 'the baseline output differs from the reference implementation on the benchmark input'
          : `the baseline failed on the benchmark input: ${message}`,
      );
    }
    if (side === 'solution')
      solutionOutcomes.push(outcome === 'passed' ? (correct ? 'ok' : 'wrong-answer') : outcome);
    const disturbed = run.evidence?.disturbed.length
      ? ` [disturbed: ${run.evidence.disturbed.join(', ')}]`
      : '';
    options.log(
      `${kind} ${side}${pair === null ? '' : ` #${pair + 1}`}: ${(result.wallTimeMs / 1000).toFixed(3)} s${correct ? '' : ` (${outcome === 'passed' ? 'wrong output' : message})`}${disturbed}`,
    );
    return run;
  };
  const solutionFailed = () => solutionOutcomes.some((o) => o !== 'ok');

  for (let i = 0; i < policy.warmups; i++) {
    options.onProgress(0.05, `warm-up ${i + 1}/${policy.warmups}`);
    await runOnce('baseline', 'warmup', null);
    await runOnce('solution', 'warmup', null);
    if (solutionFailed()) return finish();
  }

  // B S pairs until the interval is tight enough or the budget is spent. A pair with a disturbed
  // run is discarded and timed again, within thresholds.maxDiscardedPairs. When the host stays
  // too busy, either the judging fails as the host's fault (the queue retries it later) or, where
  // the manifest allows it, every pair's CPU times give a labelled estimate instead.
  const clean: MeasuredPair[] = [];
  const all: MeasuredPair[] = [];
  const reasons: Record<string, number> = {};
  let discarded = 0;
  let basis: 'wall-time' | 'cpu-time' = 'wall-time';
  const stopPolicy = {
    minPairs: policy.minPairs,
    maxPairs: policy.maxPairs,
    precision: policy.precision,
  };
  stage.disturbance = {
    discardedPairs: 0,
    reasons,
    tooBusy: false,
    thresholds,
    solutionTasksStarted: null,
  };
  for (let pair = 0; ; pair++) {
    const b = await runOnce('baseline', 'timed', pair);
    const s = await runOnce('solution', 'timed', pair);
    if (solutionFailed()) return finish();
    const measured = measuredPair(b, s);
    all.push(measured);
    const why = [...new Set([...(b.evidence?.disturbed ?? []), ...(s.evidence?.disturbed ?? [])])];
    let stop: Estimate['stopReason'] | null = null;
    if (basis === 'wall-time') {
      if (why.length) {
        discarded++;
        b.discarded = s.discarded = true;
        for (const r of why) reasons[r] = (reasons[r] ?? 0) + 1;
      } else {
        clean.push(measured);
      }
      stage.disturbance.discardedPairs = discarded;
      const decision = disturbanceDecision({ clean: clean.length, discarded }, policy, thresholds);
      if (decision === 'too-busy') {
        stage.disturbance.tooBusy = true;
        const busy = tooBusyMessage(all, discarded, reasons);
        if (!thresholds.cpuTimeFallback) {
          // For the record only (the organizer's view, the bench): no speedup is given.
          stage.cpuTimeEstimate = toEstimate(
            speedupEstimate(all.map((p) => p.cpu)),
            'budget',
            'cpu-time',
          );
          return { ...finish(), hostTooBusy: busy };
        }
        warnings.push(`${busy}; the speedup below is estimated from CPU time instead`);
        basis = 'cpu-time';
      } else if (!why.length || decision === 'budget') {
        const estimate = speedupEstimate(clean.map((p) => p.wall));
        const decided = shouldStop(estimate, stopPolicy);
        if (decided.stop) stop = decided.reason === 'precise' ? 'precise' : 'budget';
        else if (decision === 'budget') stop = 'budget';
      }
    }
    if (basis === 'cpu-time') {
      const decided = shouldStop(speedupEstimate(all.map((p) => p.cpu)), stopPolicy);
      if (decided.stop) stop = decided.reason === 'precise' ? 'precise' : 'budget';
    }
    const used = basis === 'wall-time' ? clean : all;
    const current = used.length
      ? speedupEstimate(used.map((p) => (basis === 'wall-time' ? p.wall : p.cpu)))
      : null;
    options.onProgress(
      0.1 + (0.9 * Math.min(used.length, policy.maxPairs)) / policy.maxPairs,
      current
        ? `pair ${pair + 1}: ${basis === 'cpu-time' ? 'CPU-time ' : ''}speedup ${current.speedup.toFixed(3)} (±${(current.halfWidthRel * 100).toFixed(1)}%)${discarded ? `, ${discarded} discarded as disturbed` : ''}`
        : `pair ${pair + 1}: ${discarded} discarded as disturbed`,
      {
        pairsDone: used.length,
        pairsMin: policy.minPairs,
        pairsMax: policy.maxPairs,
        pairsDiscarded: discarded,
      },
    );
    if (stop) {
      settle(used, basis, stop);
      break;
    }
  }
  return finish();

  /** The estimates from the pairs used, beside each other, and the warnings they call for. */
  function settle(
    used: MeasuredPair[],
    usedBasis: Estimate['basis'],
    stop: Estimate['stopReason'],
  ) {
    const cpu = speedupEstimate(used.map((p) => p.cpu));
    stage.cpuTimeEstimate = toEstimate(cpu, stop, 'cpu-time');
    if (usedBasis === 'cpu-time') {
      stage.estimate = stage.cpuTimeEstimate;
      return;
    }
    const wall = speedupEstimate(used.map((p) => p.wall));
    stage.estimate = toEstimate(wall, stop, 'wall-time');
    warnings.push(
      ...noiseFlags(
        used.map((p) => p.wall),
        wall,
        stopPolicy,
      ),
    );
    const disagreement = cpuWallDisagreement(wall, cpu, policy.precision);
    if (disagreement) warnings.push(disagreement);
    if (discarded)
      warnings.push(
        `disturbed runs: ${describeDiscards(discarded, reasons)} discarded and timed again; the speedup uses ${used.length} clean pairs`,
      );
  }

  function finish(): MeasureOutcome {
    const timed = (side: Side) =>
      runs.filter(
        (r) =>
          r.kind === 'timed' &&
          r.side === side &&
          r.correct &&
          (!r.discarded || stage.estimate?.basis === 'cpu-time'),
      );
    stage.baseline = timeSummary(timed('baseline').map((r) => r.stats.wallMs));
    stage.solution = timeSummary(timed('solution').map((r) => r.stats.wallMs));
    stage.counters = compareCounters(timed('baseline'), timed('solution'));
    const timedRuns = runs.filter((r) => r.kind === 'timed');
    if (options.emulated) {
      warnings.push(
        'emulated: no counters (Wine gives no PMU access and AMD uProf is not there): all unsupported; ' +
          "CPU times include Wine's own processes, so the single-thread check is not made",
      );
      return { stage, solutionOutcomes, warnings };
    }
    if (timedRuns.length && timedRuns.every((r) => r.counters['task-clock']?.status !== 'counted'))
      warnings.push('the kernel refused to count events here (perf_event_open): no counters');
    const solutionRuns = runs.filter((r) => r.side === 'solution');
    const utilizations = solutionRuns.map(programUtilization);
    const overUtilized = utilizations.filter((u) => u > SINGLE_THREAD_UTILIZATION);
    const tasks = solutionRuns.flatMap((r) => {
      const n = r.evidence?.tasksStarted;
      return n === null || n === undefined ? [] : [n];
    });
    const mostTasks = tasks.length ? Math.max(...tasks) : null;
    if (stage.disturbance) stage.disturbance.solutionTasksStarted = mostTasks;
    if (mostTasks !== null && mostTasks > 0) {
      warnings.push(
        `single-thread rule: the solution started ${mostTasks} thread${mostTasks === 1 ? '' : 's'} or process${mostTasks === 1 ? '' : 'es'} in a run; ` +
          'the rules require a single thread (pinned to one CPU it gains nothing from them, but it breaks the rule)',
      );
    } else if (overUtilized.length) {
      const worst = Math.max(...overUtilized);
      warnings.push(
        `the solution used more than one CPU's worth of time (${(worst * 100).toFixed(0)}% utilization): ` +
          'the rules require a single thread',
      );
    }
    return { stage, solutionOutcomes, warnings };
  }
}

/**
 * The memory-layout policy: ASLR stays on, so every run of either side gets a fresh random layout
 * (stack, heap, mmap base, the PIE's base) and each contestant's time is an average over layouts,
 * never one lucky or unlucky layout fixed for the whole judging (Mytkowicz et al. 2009; Curtsinger
 * and Berger's Stabilizer, 2013). A host with ASLR off gets a warning in every result.
 */
export async function layoutPolicyWarning(): Promise<string | null> {
  const setting = await readFile('/proc/sys/kernel/randomize_va_space', 'utf8').catch(() => null);
  if (setting === null || setting.trim() === '2') return null;
  return (
    `ASLR is not fully on here (kernel.randomize_va_space = ${setting.trim()}, the judge expects 2): ` +
    'every run of a program gets the same memory layout, so one layout decides its time; ' +
    'sysctl -w kernel.randomize_va_space=2'
  );
}

export interface TimedRunOptions {
  sandbox: Sandbox;
  binary: string;
  /** The benchmark input (host path) and the reference's output hash on it. */
  input: string;
  expectedSha256: string;
  workDir: string;
  limits: Limits;
  /** The CPU the run is pinned to. */
  cpu: number;
  /** Files re-warmed into the page cache before the run (the input, the binary, the libraries). */
  resident: string[];
  thresholds: DisturbanceThresholds;
  /** Emulated runs (Wine) are not judged for disturbance: their CPU time is not the program's. */
  emulated: boolean;
  signal?: AbortSignal;
}

export interface TimedRun {
  result: ProgramRun;
  /** How the run ended before its output was compared ('passed': a clean exit). */
  outcome: Exclude<TestOutcome, 'skipped'>;
  /** Why it failed, when it did not pass. */
  message: string;
  /** A clean exit with exactly the reference's output. */
  correct: boolean;
  evidence: RunEvidence;
}

/**
 * One timed run on the benchmark input, as every timed run of the judge is made: pinned to the
 * CPU, counters attached from outside, its files resident before it starts, its output hashed and
 * compared with the reference's, and the evidence of whether anything disturbed it.
 */
export async function timedRun(options: TimedRunOptions): Promise<TimedRun> {
  if (options.signal?.aborted) throw new JudgingCancelledError();
  const result = await runProgram({
    sandbox: options.sandbox,
    binary: options.binary,
    input: options.input,
    workDir: options.workDir,
    limits: options.limits,
    wallTimeMs: options.limits.benchmarkRunSeconds * 1000,
    stdout: 'hash',
    cpu: options.cpu,
    counters: true,
    resident: options.resident,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const { outcome, message } = classifyRun(result);
  return {
    result,
    outcome,
    message,
    correct: outcome === 'passed' && result.stdoutSha256 === options.expectedSha256,
    evidence: runEvidence(result, options.thresholds, {
      input: options.input,
      binary: options.binary,
      judgeDisturbance: !options.emulated,
    }),
  };
}

/** One timed pair, by wall time and by the programs' own CPU time. */
interface MeasuredPair {
  wall: TimedPair;
  cpu: TimedPair;
}

function measuredPair(b: Run, s: Run): MeasuredPair {
  // A CPU time of zero cannot be a ratio's denominator; a run that short has no CPU time to speak of.
  const cpu = (r: Run) => Math.max(r.evidence?.cpuMs ?? programCpuMs(r), 1e-3);
  return {
    wall: { baselineMs: b.stats.wallMs, solutionMs: s.stats.wallMs },
    cpu: { baselineMs: cpu(b), solutionMs: cpu(s) },
  };
}

function tooBusyMessage(
  all: MeasuredPair[],
  discarded: number,
  reasons: Record<string, number>,
): string {
  return (
    `the judge host was too busy to time this judging fairly: ${describeDiscards(discarded, reasons)} ` +
    `of ${all.length} were disturbed by other work on the pinned CPU, too many to get clean pairs ` +
    "within the budget (the host's fault, not the solution's; the queue retries it later)"
  );
}

/**
 * The warning when the wall-time and CPU-time speedups differ by more than the precision asked
 * for (or reached, if wider): the program waited (I/O, sleeping) or worked outside its own tree.
 */
export function cpuWallDisagreement(
  wall: SpeedupEstimate,
  cpu: SpeedupEstimate,
  precision: number,
): string | null {
  const difference = Math.abs(wall.speedup / cpu.speedup - 1);
  const allowed = Math.max(precision, wall.halfWidthRel, cpu.halfWidthRel);
  if (difference <= allowed) return null;
  return (
    `the wall-time speedup ${wall.speedup.toFixed(3)} and the CPU-time speedup ${cpu.speedup.toFixed(3)} ` +
    `differ by ${(difference * 100).toFixed(1)}%, more than the precision (±${(allowed * 100).toFixed(1)}%): ` +
    'a program waited (I/O, sleeping) or did work outside its own process tree'
  );
}

/** The evidence of one run, and (for a host that can tell) why it counts as disturbed. */
export function runEvidence(
  result: ProgramRun,
  thresholds: DisturbanceThresholds,
  files: { input: string; binary: string; judgeDisturbance: boolean },
): RunEvidence {
  const wallMs = result.wallTimeMs;
  const cpuMs = programCpuMs({
    stats: processStats(result),
    counters: result.counters,
  });
  const acc = result.accounting;
  const migrations = result.counters['cpu-migrations'];
  const observation = {
    wallMs,
    cpuMs,
    cpuBusyMs: acc?.cpuBusyMs ?? null,
    stealMs: acc?.cpuStealMs ?? null,
    cpuMigrations:
      migrations?.status === 'counted' && migrations.value !== null ? migrations.value : null,
    tickMs: acc?.tickMs ?? null,
  };
  return {
    cpuMs,
    utilization: wallMs > 0 ? cpuMs / wallMs : 0,
    involuntaryContextSwitches: result.involuntaryContextSwitches,
    otherTasksMs: otherTasksMs(observation),
    stealMs: observation.stealMs,
    cpuMigrations: observation.cpuMigrations,
    tasksStarted: acc?.tasksStarted ?? null,
    tickMs: observation.tickMs,
    residency: (acc?.residency ?? []).map((r) => ({
      file: residentLabel(r.path, files.input, files.binary),
      pages: r.pages,
      residentBefore: r.residentBefore,
      residentAfter: r.residentAfter,
    })),
    disturbed: files.judgeDisturbance ? disturbanceReasons(observation, thresholds) : [],
  };
}

/** The program tree's own CPU time: task-clock from its exec when counted, else user + sys. */
function programCpuMs(run: Pick<Run, 'stats' | 'counters'>): number {
  const taskClock = run.counters['task-clock'];
  if (taskClock?.status === 'counted' && taskClock.value !== null) return taskClock.value;
  return run.stats.userMs + run.stats.sysMs;
}

/**
 * CPU time per wall time of the program itself: task-clock counts only the program's tree, while
 * the OS accounting also holds the sandbox's few milliseconds of set-up (which would flag short runs).
 */
function programUtilization(run: Run): number {
  return run.stats.wallMs > 0 ? programCpuMs(run) / run.stats.wallMs : run.stats.cpuUtilization;
}

function toEstimate(
  e: SpeedupEstimate,
  stopReason: Estimate['stopReason'],
  basis: Estimate['basis'],
): Estimate {
  return {
    speedup: e.speedup,
    ciLow: e.ciLow,
    ciHigh: e.ciHigh,
    confidence: e.guaranteedConfidence ?? e.confidence,
    halfWidthRel: e.halfWidthRel,
    pairs: e.pairs,
    method:
      basis === 'cpu-time'
        ? e.method.replace('median-of-ratios', 'median-of-cpu-time-ratios')
        : e.method,
    stopReason,
    basis,
  };
}
