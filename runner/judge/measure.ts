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
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { compareCounters } from '../measure/derived-metrics';
import type { Sandbox } from '../sandbox/sandbox';
import {
  describeDiscards,
  disturbanceDecision,
  disturbanceReasons,
  noiseFlags,
  otherTasksMs,
  resolveDisturbance,
  judgingEstimate,
  judgingStatedConfidence,
  summarize,
  type DisturbanceThresholds,
  type SpeedupEstimate,
  type StopPolicy,
  widenForHostDrift,
} from '../../lib/core/stats';
import { describePlausibility, plausibilityOf } from '../../lib/core/stats/plausibility';
import { JudgeError, JudgingCancelledError } from './errors';
import {
  ensureInput,
  referenceSha256,
  warmPageCache,
  type GeneratedInput,
  type InputSpec,
} from '../../lib/core/challenge/inputs';
import {
  newPairLoop,
  pairProgressMessage,
  programCpuMs,
  recordPair,
  stopDecision,
  tooBusyMessage,
  usedPairs,
  type PairLoop,
} from './pair-loop';
import { soloTurns } from './host-turns';
import {
  createMeasureSessions,
  type MeasureSessions,
  type SessionBaseline,
  type SessionEntrant,
  type SessionKey,
} from './measure-session';
import { residentLabel, sharedLibraries } from './resident-files';
import { classifyRun, processStats, runProgram, type ProgramRun } from '../sandbox/run-program';
import type { RunOutcome } from './verdict';

/** Judgings sharing one session's baseline runs when the run policy names no size. */
export const DEFAULT_SESSION_SIZE = 8;

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
  /** What the platform says of emulated runs instead (TargetPlatform.emulatedTimingNote). */
  emulatedTimingNote?: string;
  /**
   * The host's sequential read bandwidth (bytes/s, runner/host/memory-bandwidth.ts) for the
   * plausibility check; null when the runner could not measure it, absent for no check at all.
   */
  memoryBandwidth?: number | null;
  /**
   * The host's measure sessions (runner/service): judgings of the same benchmark share the
   * baseline's runs. Absent: a session of one (`perfjudge judge`).
   */
  sessions?: MeasureSessions;
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

/** What every step of one measure stage shares: its options, the stage it fills in, the runs. */
interface MeasureContext {
  options: MeasureOptions;
  policy: RunPolicy;
  limits: Limits;
  input: GeneratedInput;
  stage: MeasureOutcome['stage'];
  /** Every run of either side, in order (the stage's `runs`). */
  runs: Run[];
  solutionOutcomes: RunOutcome[];
  warnings: string[];
}

/** The context once the binaries are to be timed: what each timed run is checked against. */
interface TimingContext extends MeasureContext {
  expectedSha: string;
  thresholds: DisturbanceThresholds;
  /** The shared libraries the baseline loads (kept resident for both sides). */
  libraries: string[];
  stopPolicy: StopPolicy;
}

export async function measure(options: MeasureOptions): Promise<MeasureOutcome> {
  const ctx = await startMeasure(options);
  if (options.identicalBinaries) return notTimed(ctx);
  return timePairs(await prepareTimedRuns(ctx));
}

/** The benchmark input, and the stage with nothing timed yet. */
async function startMeasure(options: MeasureOptions): Promise<MeasureContext> {
  options.onProgress(0, 'preparing the benchmark input');
  const input = await ensureInput(options.challenge, options.benchmark, options.dataDir);
  const runs: Run[] = [];
  return {
    options,
    policy: options.policy,
    limits: options.challenge.manifest.limits,
    input,
    stage: {
      inputBytes: input.bytes,
      inputSha256: input.sha256,
      cpu: options.cpu,
      runs,
      estimate: null,
      baseline: null,
      solution: null,
      counters: [],
    },
    runs,
    solutionOutcomes: [],
    warnings: [],
  };
}

/** Same machine code: nothing to time, and the ratio is exactly one. */
function notTimed(ctx: MeasureContext): MeasureOutcome {
  ctx.stage.estimate = {
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
  ctx.warnings.push(
    'the solution compiles to the same machine code as the baseline: speedup 1.00, not timed',
  );
  return outcome(ctx);
}

/** The reference's output hash, the input warm in the page cache, the disturbance thresholds. */
async function prepareTimedRuns(ctx: MeasureContext): Promise<TimingContext> {
  const { options, policy } = ctx;
  options.onProgress(0.02, 'computing the expected output');
  const expectedSha = await referenceSha256(options.challenge, ctx.input, options.dataDir);
  await warmPageCache(ctx.input.path);
  const thresholds = resolveDisturbance(policy.disturbance, policy.maxPairs);
  // Re-warmed before every run of either side (the sandbox helper checks with mincore): the input,
  // the side's binary and the libraries the baseline loads, which a solution can see and evict.
  const libraries = await sharedLibraries(options.baselineBinary);
  const aslrWarning = await layoutPolicyWarning();
  if (aslrWarning) ctx.warnings.push(aslrWarning);
  const stopPolicy = {
    minPairs: policy.minPairs,
    maxPairs: policy.maxPairs,
    precision: policy.precision,
  };
  return { ...ctx, expectedSha, thresholds, libraries, stopPolicy };
}

/**
 * The solution's untimed warm-up runs, in the turn of its first round (the baseline's are the
 * session's); false when the solution already failed in one.
 */
async function warmUp(ctx: TimingContext): Promise<boolean> {
  const { warmups } = ctx.policy;
  for (let i = 0; i < warmups; i++) {
    ctx.options.onProgress(0.05, `warm-up ${i + 1}/${warmups}`);
    await runOnce(ctx, 'solution', 'warmup', null);
    if (solutionFailed(ctx)) return false;
  }
  return true;
}

/**
 * Timed pairs in a measure session (measure-session.ts): each round pairs this solution's run with
 * the round's baseline run, shared with the other judgings in the session, until the interval is
 * tight enough or the budget of pairs is spent. A pair with a disturbed run is discarded and timed
 * again, within thresholds.maxDiscardedPairs. When the host stays too busy, either the judging
 * fails as the host's fault (the queue retries it later) or, where the manifest allows it, every
 * pair's CPU times give a labelled estimate instead.
 */
async function timePairs(ctx: TimingContext): Promise<MeasureOutcome> {
  const loop = newPairLoop();
  ctx.stage.disturbance = {
    discardedPairs: 0,
    reasons: loop.reasons,
    tooBusy: false,
    thresholds: ctx.thresholds,
    solutionTasksStarted: null,
  };
  let outcome: MeasureOutcome | null = null;
  const entrant: SessionEntrant = {
    signal: ctx.options.signal,
    workDir: ctx.options.workDir,
    warmUp: () => warmUp(ctx),
    runTimed: (pair) => runOnce(ctx, 'solution', 'timed', pair),
    afterRound(baseline, own, pair, baselineFirst) {
      baseline.pair = pair;
      // Recorded in the order they ran (the evidence of one run speaks of the run before it).
      ctx.runs.splice(ctx.runs.indexOf(own) + (baselineFirst ? 0 : 1), 0, baseline);
      ctx.options.log(runLogLine(baseline));
      outcome = afterPair(ctx, loop, baseline, own, pair);
      return outcome !== null;
    },
  };
  const sessions = ctx.options.sessions ?? createMeasureSessions(soloTurns);
  ctx.options.onProgress(0.05, 'waiting for the next round of the measure session');
  ctx.stage.session = await sessions.join(sessionKey(ctx), () => sessionBaseline(ctx), entrant);
  // Left after a warm-up that failed: no pair was timed.
  return outcome ?? finish(ctx);
}

/** After one timed pair: its verdict on the pair loop, and the outcome once this judging is done. */
function afterPair(
  ctx: TimingContext,
  loop: PairLoop,
  b: Run,
  s: Run,
  pair: number,
): MeasureOutcome | null {
  if (solutionFailed(ctx)) return finish(ctx);
  const disturbed = recordPair(loop, b, s).length > 0;
  let budgetSpent = false;
  if (loop.basis === 'wall-time') {
    const step = disturbanceStep(ctx, loop);
    if (step.refused !== null) return { ...finish(ctx), hostTooBusy: step.refused };
    budgetSpent = step.budgetSpent;
  }
  const stop = stopDecision(loop, disturbed, budgetSpent, ctx.stopPolicy);
  reportPair(ctx, loop, pair);
  if (!stop) return null;
  settle(ctx, loop, stop);
  return finish(ctx);
}

/**
 * Only judgings whose baseline runs are interchangeable share a session: the same baseline binary
 * on the same input and CPU, under the same limits and disturbance rules.
 */
function sessionKey(ctx: TimingContext): SessionKey {
  const { options } = ctx;
  return {
    key: JSON.stringify({
      challenge: [options.challenge.manifest.slug, options.challenge.manifest.version],
      baseline: options.baselineBinary,
      input: ctx.input.sha256,
      cpu: options.cpu,
      emulated: options.emulated ?? false,
      warmups: ctx.policy.warmups,
      limits: ctx.limits,
      thresholds: ctx.thresholds,
    }),
    size: ctx.policy.sessionSize ?? DEFAULT_SESSION_SIZE,
  };
}

/** The session's baseline runs, made as every timed run is (the first entrant's context). */
function sessionBaseline(ctx: TimingContext): SessionBaseline {
  return {
    warmups: ctx.policy.warmups,
    async run(kind, signal, workDir) {
      const timed = await timedRun({
        ...timedRunSettings(ctx, ctx.options.baselineBinary),
        workDir: workDir ?? ctx.options.workDir,
        signal,
      });
      if (!timed.correct)
        throw new JudgeError(
          timed.outcome === 'passed'
            ? 'the baseline output differs from the reference implementation on the benchmark input'
            : `the baseline failed on the benchmark input: ${timed.message}`,
        );
      return recordedRun('baseline', kind, null, timed);
    },
  };
}

/**
 * The disturbance rule after a wall-time pair: the discard budget may be spent, or the host too
 * busy for clean pairs: then refused (`refused`: why), or judged by CPU time from here on where the
 * policy allows it.
 */
function disturbanceStep(
  ctx: TimingContext,
  loop: PairLoop,
): { refused: string | null; budgetSpent: boolean } {
  const disturbance = ctx.stage.disturbance!;
  disturbance.discardedPairs = loop.discarded;
  const decision = disturbanceDecision(
    { clean: loop.clean.length, discarded: loop.discarded },
    ctx.policy,
    ctx.thresholds,
  );
  if (decision !== 'too-busy') return { refused: null, budgetSpent: decision === 'budget' };
  disturbance.tooBusy = true;
  const busy = tooBusyMessage(loop);
  if (!ctx.thresholds.cpuTimeFallback) {
    // For the record only (the organizer's view, the bench): no speedup is given.
    ctx.stage.cpuTimeEstimate = toEstimate(
      judgingEstimate(loop.all.map((p) => p.cpu)),
      'budget',
      'cpu-time',
      ctx.policy.hostDrift,
    );
    return { refused: busy, budgetSpent: false };
  }
  ctx.warnings.push(`${busy}; the speedup below is estimated from CPU time instead`);
  loop.basis = 'cpu-time';
  return { refused: null, budgetSpent: false };
}

/** The progress event after a timed pair. */
function reportPair(ctx: TimingContext, loop: PairLoop, pair: number): void {
  const { policy } = ctx;
  const used = usedPairs(loop).length;
  ctx.options.onProgress(
    0.1 + (0.9 * Math.min(used, policy.maxPairs)) / policy.maxPairs,
    pairProgressMessage(loop, pair),
    {
      pairsDone: used,
      pairsMin: policy.minPairs,
      pairsMax: policy.maxPairs,
      pairsDiscarded: loop.discarded,
    },
  );
}

/** One run of the solution: timed, checked, recorded with how it ended. */
async function runOnce(
  ctx: TimingContext,
  side: 'solution',
  kind: Run['kind'],
  pair: number | null,
): Promise<Run> {
  const { options } = ctx;
  const timed = await timedRun({
    ...timedRunSettings(ctx, options.solutionBinary),
    workDir: options.workDir,
    signal: options.signal,
  });
  const run = recordedRun(side, kind, pair, timed);
  ctx.runs.push(run);
  const { outcome, correct } = timed;
  ctx.solutionOutcomes.push(outcome === 'passed' ? (correct ? 'ok' : 'wrong-answer') : outcome);
  options.log(runLogLine(run, timed));
  return run;
}

/** What every timed run of a judging shares, for one of its binaries. */
function timedRunSettings(
  ctx: TimingContext,
  binary: string,
): Omit<TimedRunOptions, 'workDir' | 'signal'> {
  return {
    sandbox: ctx.options.sandbox,
    binary,
    input: ctx.input.path,
    expectedSha256: ctx.expectedSha,
    limits: ctx.limits,
    cpu: ctx.options.cpu,
    resident: [ctx.input.path, binary, ...ctx.libraries],
    thresholds: ctx.thresholds,
    emulated: ctx.options.emulated ?? false,
  };
}

function recordedRun(side: Side, kind: Run['kind'], pair: number | null, timed: TimedRun): Run {
  const { result } = timed;
  return {
    side,
    kind,
    pair,
    stats: processStats(result),
    outputBytes: result.stdoutBytes,
    outputSha256: result.stdoutSha256,
    correct: timed.correct,
    exitCode: result.exitCode,
    signal: result.signal,
    counters: result.counters,
    evidence: timed.evidence,
    discarded: false,
  };
}

/** "timed solution #3: 1.234 s (wrong output) [disturbed: …]" */
function runLogLine(run: Run, timed?: TimedRun): string {
  const disturbed = run.evidence?.disturbed.length
    ? ` [disturbed: ${run.evidence.disturbed.join(', ')}]`
    : '';
  const failure =
    run.correct || !timed
      ? ''
      : ` (${timed.outcome === 'passed' ? 'wrong output' : timed.message})`;
  return `${run.kind} ${run.side}${run.pair === null ? '' : ` #${run.pair + 1}`}: ${(run.stats.wallMs / 1000).toFixed(3)} s${failure}${disturbed}`;
}

function solutionFailed(ctx: MeasureContext): boolean {
  return ctx.solutionOutcomes.some((o) => o !== 'ok');
}

/** The estimates from the pairs used, beside each other, and the warnings they call for. */
function settle(ctx: TimingContext, loop: PairLoop, stop: Estimate['stopReason']): void {
  const { stage, warnings } = ctx;
  const used = usedPairs(loop);
  const cpu = judgingEstimate(used.map((p) => p.cpu));
  stage.cpuTimeEstimate = toEstimate(cpu, stop, 'cpu-time', ctx.policy.hostDrift);
  if (loop.basis === 'cpu-time') {
    stage.estimate = stage.cpuTimeEstimate;
    return;
  }
  const wall = judgingEstimate(used.map((p) => p.wall));
  stage.estimate = toEstimate(wall, stop, 'wall-time', ctx.policy.hostDrift);
  warnings.push(
    ...noiseFlags(
      used.map((p) => p.wall),
      wall,
      ctx.stopPolicy,
    ),
  );
  const disagreement = cpuWallDisagreement(wall, cpu, ctx.policy.precision);
  if (disagreement) warnings.push(disagreement);
  if (loop.discarded)
    warnings.push(
      `disturbed runs: ${describeDiscards(loop.discarded, loop.reasons)} discarded and timed again; the speedup uses ${used.length} clean pairs`,
    );
}

/** The time summaries, counters and plausibility of the runs made, and the warnings they call for. */
function finish(ctx: MeasureContext): MeasureOutcome {
  summarizeTimedRuns(ctx);
  checkPlausibility(ctx);
  if (ctx.options.emulated) {
    if (ctx.options.emulatedTimingNote) ctx.warnings.push(ctx.options.emulatedTimingNote);
    return outcome(ctx);
  }
  const timedRuns = ctx.runs.filter((r) => r.kind === 'timed');
  if (timedRuns.length && timedRuns.every((r) => r.counters['task-clock']?.status !== 'counted'))
    ctx.warnings.push('the kernel refused to count events here (perf_event_open): no counters');
  const threads = singleThreadWarning(ctx);
  if (threads) ctx.warnings.push(threads);
  return outcome(ctx);
}

function outcome(ctx: MeasureContext): MeasureOutcome {
  return { stage: ctx.stage, solutionOutcomes: ctx.solutionOutcomes, warnings: ctx.warnings };
}

/** Each side's times and the counters, from its correct timed runs that count for the estimate. */
function summarizeTimedRuns(ctx: MeasureContext): void {
  const { stage } = ctx;
  const timed = (side: Side) =>
    ctx.runs.filter(
      (r) =>
        r.kind === 'timed' &&
        r.side === side &&
        r.correct &&
        (!r.discarded || stage.estimate?.basis === 'cpu-time'),
    );
  stage.baseline = timeSummary(timed('baseline').map((r) => r.stats.wallMs));
  stage.solution = timeSummary(timed('solution').map((r) => r.stats.wallMs));
  stage.counters = compareCounters(timed('baseline'), timed('solution'));
}

/**
 * The single-thread rule from the solution's runs: the tasks it started (kept in the stage) or,
 * where the host cannot count them, more than one CPU's worth of time.
 */
function singleThreadWarning(ctx: MeasureContext): string | null {
  const solutionRuns = ctx.runs.filter((r) => r.side === 'solution');
  const overUtilized = solutionRuns
    .map(programUtilization)
    .filter((u) => u > SINGLE_THREAD_UTILIZATION);
  const tasks = solutionRuns.flatMap((r) => {
    const n = r.evidence?.tasksStarted;
    return n === null || n === undefined ? [] : [n];
  });
  const mostTasks = tasks.length ? Math.max(...tasks) : null;
  if (ctx.stage.disturbance) ctx.stage.disturbance.solutionTasksStarted = mostTasks;
  if (mostTasks !== null && mostTasks > 0) {
    return (
      `single-thread rule: the solution started ${mostTasks} thread${mostTasks === 1 ? '' : 's'} or process${mostTasks === 1 ? '' : 'es'} in a run; ` +
      'the rules require a single thread (pinned to one CPU it gains nothing from them, but it breaks the rule)'
    );
  }
  if (!overUtilized.length) return null;
  const worst = Math.max(...overUtilized);
  return (
    `the solution used more than one CPU's worth of time (${(worst * 100).toFixed(0)}% utilization): ` +
    'the rules require a single thread'
  );
}

/**
 * The solution's fastest correct timed run (discarded ones too: a disturbance only slows a run)
 * against the least time its input takes to read. For the organizer only: logged and kept in the
 * stage, not in the warnings every contestant reads (the organizer pages show the flag).
 */
function checkPlausibility(ctx: MeasureContext): void {
  const { options, stage } = ctx;
  if (options.memoryBandwidth === undefined) return;
  const times = ctx.runs
    .filter((r) => r.kind === 'timed' && r.side === 'solution' && r.correct)
    .map((r) => r.stats.wallMs);
  if (!times.length) return;
  stage.plausibility = plausibilityOf({
    inputBytes: stage.inputBytes,
    fastestMs: Math.min(...times),
    bandwidthBytesPerSecond: options.memoryBandwidth,
  });
  if (stage.plausibility) options.log(describePlausibility(stage.plausibility));
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
    signal: options.signal,
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

/**
 * CPU time per wall time of the program itself: task-clock counts only the program's tree, while
 * the OS accounting also holds the sandbox's few milliseconds of set-up (which would flag short runs).
 */
function programUtilization(run: Run): number {
  return run.stats.wallMs > 0 ? programCpuMs(run) / run.stats.wallMs : run.stats.cpuUtilization;
}

/** The stage's estimate; with the policy's host drift (if any) in its interval. */
function toEstimate(
  e: SpeedupEstimate,
  stopReason: Estimate['stopReason'],
  basis: Estimate['basis'],
  hostDrift: number | undefined,
): Estimate {
  const estimate: Estimate = {
    speedup: e.speedup,
    ciLow: e.ciLow,
    ciHigh: e.ciHigh,
    confidence: judgingStatedConfidence(e),
    halfWidthRel: e.halfWidthRel,
    pairs: e.pairs,
    method:
      basis === 'cpu-time'
        ? e.method
            .replace('median-of-ratios', 'median-of-cpu-time-ratios')
            .replace('-of-log-ratios', '-of-cpu-time-log-ratios')
        : e.method,
    stopReason,
    basis,
  };
  if (!hostDrift) return estimate;
  return {
    ...estimate,
    ...widenForHostDrift(e, hostDrift),
    hostDrift: {
      sdRel: hostDrift,
      statCiLow: e.ciLow,
      statCiHigh: e.ciHigh,
      statHalfWidthRel: e.halfWidthRel,
    },
  };
}
