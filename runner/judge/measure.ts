// The measure stage: warm the page cache, one warm-up run each, then baseline and solution
// alternately (B S B S …) pinned to one CPU, every output hashed and checked, until the speedup's
// interval is as tight as the policy asks or the budget of pairs is spent.
import type { Estimate, JudgingResult, Run, RunPolicy, Side, TimeSummary } from '../../contracts';
import type { Challenge } from '../../lib/challenge/load-manifest';
import { compareCounters } from '../measure/derived-metrics';
import type { Sandbox } from '../sandbox/sandbox';
import { noiseFlags, shouldStop, speedupEstimate, summarize, type TimedPair } from '../stats';
import { JudgeError, JudgingCancelledError } from './errors';
import { ensureInput, referenceSha256, warmPageCache, type InputSpec } from './inputs';
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
  onProgress: (fraction: number, message: string) => void;
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
    };
    warnings.push(
      'the solution compiles to the same machine code as the baseline: speedup 1.00, not timed',
    );
    return { stage, solutionOutcomes, warnings };
  }
  options.onProgress(0.02, 'computing the expected output');
  const expectedSha = await referenceSha256(challenge, input, options.dataDir);
  await warmPageCache(input.path);

  const runOnce = async (
    side: Side,
    kind: Run['kind'],
    pair: number | null,
  ): Promise<ProgramRun> => {
    if (options.signal?.aborted) throw new JudgingCancelledError();
    const result = await runProgram({
      sandbox: options.sandbox,
      binary: side === 'baseline' ? options.baselineBinary : options.solutionBinary,
      input: input.path,
      workDir: options.workDir,
      limits,
      wallTimeMs: limits.benchmarkRunSeconds * 1000,
      stdout: 'hash',
      cpu: options.cpu,
      counters: true,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const { outcome, message } = classifyRun(result);
    const correct = outcome === 'passed' && result.stdoutSha256 === expectedSha;
    runs.push({
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
    });
    if (side === 'baseline' && !correct) {
      throw new JudgeError(
        outcome === 'passed'
          ? 'the baseline output differs from the reference implementation on the benchmark input'
          : `the baseline failed on the benchmark input: ${message}`,
      );
    }
    if (side === 'solution')
      solutionOutcomes.push(outcome === 'passed' ? (correct ? 'ok' : 'wrong-answer') : outcome);
    options.log(
      `${kind} ${side}${pair === null ? '' : ` #${pair + 1}`}: ${(result.wallTimeMs / 1000).toFixed(3)} s${correct ? '' : ` (${outcome === 'passed' ? 'wrong output' : message})`}`,
    );
    return result;
  };
  const solutionFailed = () => solutionOutcomes.some((o) => o !== 'ok');

  for (let i = 0; i < policy.warmups; i++) {
    options.onProgress(0.05, `warm-up ${i + 1}/${policy.warmups}`);
    await runOnce('baseline', 'warmup', null);
    await runOnce('solution', 'warmup', null);
    if (solutionFailed()) return finish();
  }

  const pairs: TimedPair[] = [];
  const stopPolicy = {
    minPairs: policy.minPairs,
    maxPairs: policy.maxPairs,
    precision: policy.precision,
  };
  for (let pair = 0; pair < policy.maxPairs; pair++) {
    const b = await runOnce('baseline', 'timed', pair);
    const s = await runOnce('solution', 'timed', pair);
    if (solutionFailed()) return finish();
    pairs.push({ baselineMs: b.wallTimeMs, solutionMs: s.wallTimeMs });
    const estimate = speedupEstimate(pairs);
    const decision = shouldStop(estimate, stopPolicy);
    const fraction = 0.1 + (0.9 * (pair + 1)) / policy.maxPairs;
    options.onProgress(
      fraction,
      `pair ${pair + 1}: speedup ${estimate.speedup.toFixed(3)} (±${(estimate.halfWidthRel * 100).toFixed(1)}%)`,
    );
    if (decision.stop) {
      stage.estimate = toEstimate(estimate, decision.reason === 'precise' ? 'precise' : 'budget');
      warnings.push(...noiseFlags(pairs, estimate, stopPolicy));
      break;
    }
  }
  return finish();

  function finish(): MeasureOutcome {
    const timed = (side: Side) =>
      runs.filter((r) => r.kind === 'timed' && r.side === side && r.correct);
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
    const utilizations = runs.filter((r) => r.side === 'solution').map(programUtilization);
    const overUtilized = utilizations.filter((u) => u > SINGLE_THREAD_UTILIZATION);
    if (overUtilized.length) {
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
 * CPU time per wall time of the program itself: task-clock counts only the program's tree, while
 * the OS accounting also holds the sandbox's few milliseconds of set-up (which would flag short runs).
 */
function programUtilization(run: Run): number {
  const taskClock = run.counters['task-clock'];
  if (taskClock?.status === 'counted' && taskClock.value !== null && run.stats.wallMs > 0) {
    return taskClock.value / run.stats.wallMs;
  }
  return run.stats.cpuUtilization;
}

function toEstimate(
  e: ReturnType<typeof speedupEstimate>,
  stopReason: Estimate['stopReason'],
): Estimate {
  return {
    speedup: e.speedup,
    ciLow: e.ciLow,
    ciHigh: e.ciHigh,
    confidence: e.guaranteedConfidence ?? e.confidence,
    halfWidthRel: e.halfWidthRel,
    pairs: e.pairs,
    method: e.method,
    stopReason,
  };
}
