// The judge's steps, in the order judge() runs them (runner/judge/judge.ts), each over the shared
// JudgingContext: it records its stage in the result and its facts for the verdict, and says
// whether the judging goes on. A stage that finds the judge or the host at fault throws a
// JudgeError; recordFailure turns it into the verdict's facts and finishReport decides the verdict.
import { readFile } from 'node:fs/promises';
import { hugePageHint } from '../../lib/core/challenge/host-conditions';
import { ensureInput } from '../../lib/core/challenge/inputs';
import { cpuBusyShares, cpuVendor, hostConditionWarnings } from '../host/fingerprint';
import { intakePatch } from '../intake';
import type { TargetPlatform } from '../platform';
import { binariesIdentical, fileSha256 } from './binaries';
import { firstErrorLine } from '../build';
import { buildBaseline, buildSolution, type BaselineBuild } from './build-steps';
import { JudgeError, JudgingCancelledError } from './errors';
import { scrubHostPaths } from './host-paths';
import { checkCancelled, enterStage, log, progress, type JudgingContext } from './judging-context';
import { measure, type MeasureOutcome } from './measure';
import { runProfile } from './profile-stage';
import { runTests } from './test-stage';
import { decideVerdict } from './verdict';

/** An SMT sibling busier than this while the runs were timed shares the core with them. */
const BUSY_SIBLING_SHARE = 0.2;

/** What the build stage hands on: both binaries, and whether they are the same machine code. */
export interface BuiltBinaries {
  baseline: BaselineBuild;
  baselineSha256: string;
  solutionBinary: string;
  identical: boolean;
}

/**
 * Before intake: the target and its platform exist, this host may judge it (or is labelled
 * development mode), and both sandboxes work. Returns the platform the stages run on.
 */
export async function preflight(ctx: JudgingContext): Promise<TargetPlatform> {
  const { options, target, targetSpec, platform, warnings } = ctx;
  if (!targetSpec)
    throw new JudgeError(`challenge ${ctx.challenge.manifest.slug} has no target ${target}`);
  if (!platform) throw new JudgeError(ctx.platformError ?? `no platform adapter for ${target}`);
  warnings.push(...platform.notes);
  if (ctx.hostDifferences.length)
    warnings.push(
      `development mode: this host differs from the benchmark definition: ${ctx.hostDifferences.join('; ')}`,
    );
  if (ctx.requestedDevMode) {
    warnings.push(
      `development mode: this host (${ctx.host.cpuVendor}, ${ctx.host.os}) does not match target ${target} ` +
        `(${targetSpec.cpuVendor}, ${targetSpec.os}); timings are not the target's`,
    );
  } else if ((await cpuVendor()) !== targetSpec.cpuVendor) {
    throw new JudgeError(
      `this host's CPU is not ${targetSpec.cpuVendor} as target ${target} requires (use dev mode)`,
    );
  }
  await options.sandbox.check();
  if (platform.runSandbox !== options.sandbox) {
    progress(ctx, 'intake', 0, `preparing the ${platform.runSandbox.kind} sandbox`);
    await platform.runSandbox.check();
  }
  return platform;
}

/** 1. Intake: parse, validate and apply the patch to a copy of the template. False: rejected. */
export async function intakeStage(ctx: JudgingContext): Promise<boolean> {
  const { options, challenge, result } = ctx;
  progress(ctx, 'intake', 0, 'checking the patch');
  const intake = await intakePatch({
    patchText: options.patchText,
    challenge,
    destDir: ctx.dirs.srcDir,
  });
  result.stages.intake = intake.ok
    ? { ok: true, reason: null, files: intake.files, format: intake.format }
    : { ok: false, reason: intake.reason, files: [], format: null };
  ctx.facts.intake = intake.ok ? { ok: true } : { ok: false, message: intake.message };
  log(
    ctx,
    intake.ok
      ? `patch applies: ${intake.files.map((f) => f.path).join(', ')}`
      : `patch rejected: ${intake.message}`,
  );
  if (!intake.ok) return false;
  ctx.hugePageNote = hugePageHint(options.patchText.toString(), challenge.manifest.host?.memory);
  if (ctx.hugePageNote) ctx.warnings.push(ctx.hugePageNote);
  checkCancelled(ctx);
  return true;
}

/**
 * 2. Build: the baseline from the pristine template (trusted, cached), the solution in the
 * sandbox. Null when the solution produced no binary.
 */
export async function buildStage(
  ctx: JudgingContext,
  platform: TargetPlatform,
): Promise<BuiltBinaries | null> {
  const { options, challenge } = ctx;
  enterStage(ctx, 'build');
  progress(ctx, 'build', 0, 'building the baseline');
  const baseline = await buildBaseline({
    challenge,
    platform,
    dataDir: options.dataDir,
    signal: options.signal,
  });
  checkCancelled(ctx);
  progress(ctx, 'build', 0.3, 'building the solution');
  const solution = await buildSolution({
    challenge,
    platform,
    sandbox: options.sandbox,
    boxDir: ctx.dirs.boxDir,
    dataDir: options.dataDir,
    workDir: ctx.dirs.workDir,
    signal: options.signal,
  });
  const built = await recordBuild(ctx, baseline, solution);
  log(
    ctx,
    solution.build.ok
      ? `solution built in ${(solution.build.durationMs / 1000).toFixed(1)} s`
      : 'the solution did not build',
  );
  return built;
}

/** The build stage of the result and the verdict's build facts, from both builds. */
async function recordBuild(
  ctx: JudgingContext,
  baseline: BaselineBuild,
  built: Awaited<ReturnType<typeof buildSolution>>,
): Promise<BuiltBinaries | null> {
  const { build: solution, binary: solutionBinary, limitExceeded } = built;
  const baselineSha256 = await fileSha256(baseline.binary);
  const identical = solutionBinary
    ? await binariesIdentical(baseline.binary, solutionBinary)
    : false;
  ctx.result.stages.build = {
    baseline: {
      ok: true,
      cached: baseline.cached,
      durationMs: baseline.durationMs,
      log: baseline.log,
      binarySha256: baselineSha256,
      limitExceeded: null,
    },
    solution: {
      ok: solution.ok,
      cached: false,
      durationMs: solution.durationMs,
      log: solution.log,
      binarySha256: solutionBinary ? await fileSha256(solutionBinary) : null,
      limitExceeded,
    },
    identicalBinaries: identical,
  };
  ctx.facts.build = {
    ok: solution.ok,
    limitExceeded,
    firstError: solution.ok ? null : firstErrorLine(solution.log),
  };
  return solutionBinary ? { baseline, baselineSha256, solutionBinary, identical } : null;
}

/** 3. Test: the edge cases and the public input, each checked exactly. False: a required one failed. */
export async function testStage(
  ctx: JudgingContext,
  platform: TargetPlatform,
  built: BuiltBinaries,
): Promise<boolean> {
  const { options } = ctx;
  enterStage(ctx, 'test');
  const cases = await runTests({
    challenge: ctx.challenge,
    sandbox: platform.runSandbox,
    solutionBinary: built.solutionBinary,
    baselineBinary: built.baseline.binary,
    baselineSha256: built.baselineSha256,
    publicInput: options.publicInput,
    dataDir: options.dataDir,
    workDir: ctx.dirs.workDir,
    onProgress: (fraction, message) => progress(ctx, 'test', fraction, message),
    log: (line) => log(ctx, line),
    signal: options.signal,
  });
  ctx.result.stages.test = { cases };
  ctx.facts.tests = cases;
  if (cases.some((c) => c.required && c.outcome !== 'passed')) return false;
  checkCancelled(ctx);
  return true;
}

/** /proc/stat when the timed runs start, to tell afterwards how busy the SMT siblings were. */
export interface MeasureStageOutcome {
  measured: MeasureOutcome;
  procStatBefore: string;
}

/**
 * 4. Measure: B S B S … on the hidden input until the interval is tight enough. A host too busy
 * to time fairly is the host's fault: a JudgeError (retried later), the runs kept in the result.
 */
export async function measureStage(
  ctx: JudgingContext,
  platform: TargetPlatform,
  built: BuiltBinaries,
): Promise<MeasureStageOutcome> {
  const { options } = ctx;
  enterStage(ctx, 'measure');
  const procStatBefore = await readProcStat();
  const measured = await measure({
    challenge: ctx.challenge,
    sandbox: platform.runSandbox,
    baselineBinary: built.baseline.binary,
    solutionBinary: built.solutionBinary,
    identicalBinaries: built.identical,
    benchmark: options.benchmark,
    dataDir: options.dataDir,
    workDir: ctx.dirs.workDir,
    policy: ctx.policy,
    cpu: ctx.cpu,
    emulated: platform.capabilities.timing === 'emulated',
    emulatedTimingNote: platform.emulatedTimingNote,
    memoryBandwidth: options.memoryBandwidth,
    sessions: ctx.sharing.sessions,
    onProgress: (fraction, message, detail) => progress(ctx, 'measure', fraction, message, detail),
    log: (line) => log(ctx, line),
    signal: options.signal,
  });
  ctx.result.stages.measure = measured.stage;
  ctx.facts.measuredRuns = measured.solutionOutcomes;
  ctx.warnings.push(...measured.warnings);
  // Kept in the result for the organizer, but the host's fault: JUDGE_ERROR, retried later.
  if (measured.hostTooBusy) throw new JudgeError(measured.hostTooBusy);
  return { measured, procStatBefore };
}

/**
 * 5. Profile, for a correct solution that differs from the baseline: the memory profile, Top-Down
 * and cachegrind, as far as the platform has them (Linux tools: a note instead for other
 * targets), unless turned off.
 */
export async function profileStage(
  ctx: JudgingContext,
  platform: TargetPlatform,
  built: BuiltBinaries,
  measured: MeasureOutcome,
): Promise<void> {
  const { options } = ctx;
  if (!measured.solutionOutcomes.every((o) => o === 'ok') || built.identical) return;
  const { memoryProfile, topDown, cachegrind, sampledProfile } = platform.capabilities;
  if (!memoryProfile && !topDown && !cachegrind && !sampledProfile) {
    ctx.result.stages.profile = {
      memory: null,
      topdown: null,
      deterministic: null,
      sampled: null,
      notes: [
        `the memory profile, Top-Down, cachegrind and the sampled profile (perf record) are Linux tools for Linux binaries: unavailable on this target (${ctx.target})`,
      ],
    };
    return;
  }
  if (options.profile === false) return;
  enterStage(ctx, 'profile');
  ctx.result.stages.profile = await runProfile({
    parts: { memoryProfile, topDown, cachegrind, sampledProfile },
    challenge: ctx.challenge,
    sandbox: platform.runSandbox,
    toolchain: platform.toolchain,
    baselineBinary: built.baseline.binary,
    baselineBuildKey: built.baseline.key,
    solutionBinary: built.solutionBinary,
    solutionTree: ctx.dirs.srcDir,
    boxDir: ctx.dirs.boxDir,
    benchmarkInput: await ensureInput(ctx.challenge, options.benchmark, options.dataDir),
    timedMedianMs: measured.stage.baseline?.medianMs,
    dataDir: options.dataDir,
    workDir: ctx.dirs.workDir,
    cpu: ctx.cpu,
    policy: ctx.policy,
    cachegrindOff: options.cachegrindOff,
    onProgress: (fraction, message) => progress(ctx, 'profile', fraction, message),
    log: (line) => log(ctx, line),
    signal: options.signal,
  });
}

/** After the timed runs: the host's conditions while they ran (busy SMT siblings), and the seed. */
export async function closingWarnings(ctx: JudgingContext, procStatBefore: string): Promise<void> {
  const busy = cpuBusyShares(procStatBefore, await readProcStat());
  const busySiblings = ctx.host.smtSiblings.filter((c) => (busy.get(c) ?? 0) > BUSY_SIBLING_SHARE);
  ctx.warnings.push(...hostConditionWarnings(ctx.host, busySiblings));
  if (!ctx.options.benchmarkSeedIsSecret) {
    ctx.warnings.push(
      'the benchmark seed is not secret (no seed configured): fine locally, not for a contest',
    );
  }
}

function readProcStat(): Promise<string> {
  return readFile('/proc/stat', 'utf8').catch(() => '');
}

/** A stage threw: cancelled, the judge's or host's fault (JudgeError), or unexpected (logged). */
export function recordFailure(ctx: JudgingContext, error: unknown): void {
  if (error instanceof JudgingCancelledError || ctx.options.signal?.aborted) {
    ctx.facts.judgeError = 'the judging was cancelled';
    return;
  }
  ctx.facts.judgeError = error instanceof Error ? error.message : String(error);
  if (!(error instanceof JudgeError))
    log(ctx, `unexpected error: ${(error as Error).stack ?? String(error)}`);
}

/**
 * However the judging ended: the verdict from the facts, the result scrubbed of host paths (it is
 * all shown to the contestant), its times, the last progress event, the scratch folder removed.
 */
export async function finishReport(ctx: JudgingContext): Promise<void> {
  const { result } = ctx;
  enterStage(ctx, 'report');
  const decision = decideVerdict(ctx.facts);
  result.verdict = decision.verdict;
  result.message =
    ctx.hugePageNote && decision.verdict === 'RUNTIME_ERROR'
      ? `${decision.reason} (${ctx.hugePageNote})`
      : decision.reason;
  ctx.warnings.push(...decision.warnings);
  Object.assign(result, scrubHostPaths(result, ctx.shownPaths));
  const finished = new Date();
  result.finishedAt = finished.toISOString();
  result.durationMs = finished.getTime() - ctx.started.getTime();
  progress(ctx, 'report', 1, `${result.verdict}: ${result.message}`);
  await ctx.scratch.dispose();
}
