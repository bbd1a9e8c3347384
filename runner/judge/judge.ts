// The judge: intake → build → test → measure → report for one patch on one target. The queue worker
// and `perfjudge judge` both call this; everything it decides ends up in one typed JudgingResult.
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type {
  JudgingResult,
  ProgressEvent,
  RunPolicy,
  Stage,
  TargetId,
  TestCaseResult,
} from '../../contracts';
import { emptyStages } from '../../contracts';
import { hugePageHint } from '../../lib/challenge/host-conditions';
import type { Challenge } from '../../lib/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/config/env';
import {
  cpuBusyShares,
  cpuVendor,
  hostConditionWarnings,
  hostFingerprint,
  judgeCpu,
} from '../host/fingerprint';
import { checkHostMemory } from '../host/memory';
import { intakePatch } from '../intake';
import type { Sandbox } from '../sandbox/sandbox';
import { createTargetPlatform, type TargetPlatform } from '../windows/target-platform';
import { binariesIdentical, fileSha256 } from './binaries';
import { buildBaseline, buildSolution } from './build-steps';
import { JudgeError, JudgingCancelledError } from './errors';
import { ensureInput, type InputSpec } from './inputs';
import { measure, type MeasureOutcome } from './measure';
import { runProfile } from './profile-stage';
import { createScratch } from './scratch';
import { runTests } from './test-stage';
import { decideVerdict, type VerdictFacts } from './verdict';
import { judgingHostPaths, scrubHostPaths, scrubText, type HostPath } from './host-paths';

/** Room for everything a judging writes: twice the largest file, at least 256 MiB. */
function scratchBytes(limits: { fileBytes: number }): number {
  return Math.max(2 * limits.fileBytes, 256 * 2 ** 20);
}

/** An SMT sibling busier than this while the runs were timed shares the core with them. */
const BUSY_SIBLING_SHARE = 0.2;

export interface JudgeOptions {
  challenge: Challenge;
  target: TargetId;
  patchText: string | Buffer;
  /** The host's sandbox: builds run in it (and, unless the platform says otherwise, programs). */
  sandbox: Sandbox;
  /**
   * The target's adapter (toolchain, run sandbox, labels); by default the one for this host and
   * target (createTargetPlatform): native Linux, native Windows, or Windows emulated under Wine.
   */
  platform?: TargetPlatform;
  /** Caches: baseline builds, generated inputs, expected outputs. Never visible to the sandbox. */
  dataDir: string;
  /** The hidden benchmark input (seed from the organizer's secret). */
  benchmark: InputSpec;
  /** False when the seed is a local stand-in: the result says the input was not secret. */
  benchmarkSeedIsSecret: boolean;
  /** The public small input checked in the test stage; null to skip it. */
  publicInput: InputSpec | null;
  runPolicy?: Partial<RunPolicy>;
  /** CPU the timed runs are pinned to; defaults to the manifest's, else the last CPU. */
  cpu?: number;
  judgingId?: string | null;
  /** The runner's hardware does not match the target: label every result. */
  devMode?: boolean;
  onProgress?: (event: ProgressEvent) => void;
  onLog?: (line: string) => void;
  signal?: AbortSignal;
  /** Parent of the per-judging work directory (default: the OS temp dir). */
  workRoot?: string;
  /** Where /proc and /sys are read for the host's memory conditions (tests: recorded files). */
  hostRoot?: string;
  /** False: no profile stage (benches that measure only the speedup). Default true. */
  profile?: boolean;
}

export async function judge(options: JudgeOptions): Promise<JudgingResult> {
  const started = new Date();
  const { challenge, target } = options;
  const { manifest } = challenge;
  const targetSpec = manifest.targets[target];
  const stageDurationsMs: Partial<Record<Stage, number>> = {};
  const warnings: string[] = [];
  // The runner's folders as a contestant is shown them (set once the scratch folder exists).
  let shownPaths: HostPath[] = [];
  const progress = (
    stage: Stage,
    fraction: number,
    message: string,
    detail?: ProgressEvent['detail'],
  ) =>
    options.onProgress?.({
      stage,
      fraction: Math.min(1, Math.max(0, fraction)),
      message: scrubText(message, shownPaths).slice(0, 500),
      ...(detail ? { detail } : {}),
    });
  const log = (line: string) => options.onLog?.(line);
  const checkCancelled = () => {
    if (options.signal?.aborted) throw new JudgingCancelledError();
  };

  const policy: RunPolicy = { ...manifest.runPolicy, ...options.runPolicy };
  const cpu = judgeCpu(policy.cpu, options.cpu);
  let platform: TargetPlatform | null = options.platform ?? null;
  let platformError: string | null = null;
  if (!platform && targetSpec) {
    try {
      platform = await createTargetPlatform({
        target: targetSpec,
        sandbox: options.sandbox,
        dataDir: options.dataDir,
        log,
      });
    } catch (error) {
      platformError = (error as Error).message;
    }
  }
  // An emulated target is never the target's hardware: always labelled development mode too.
  const requestedDevMode = (options.devMode ?? false) || platform?.mode === 'emulated';
  // A host whose memory differs from the benchmark definition's (THP, huge page pool) measures
  // something else: its results are labelled (the runner refuses such a host at start-up).
  const hostDifferences = await checkHostMemory(manifest.host?.memory, options.hostRoot);
  const devMode = requestedDevMode || hostDifferences.length > 0;
  // A development-mode host's timings are not the target's anyway: when it is too busy for clean
  // pairs, a labelled CPU-time estimate serves its user better than a retry, unless a policy says.
  if (devMode && policy.disturbance?.cpuTimeFallback === undefined)
    policy.disturbance = { ...policy.disturbance, cpuTimeFallback: true };
  const host = await hostFingerprint({
    cxx: platform?.toolchain.cxx ?? targetSpec?.toolchain.cxx ?? 'c++',
    sandbox: platform?.sandboxLabel ?? options.sandbox.kind,
    cpu,
    devMode,
    emulated: platform?.mode === 'emulated',
  });
  host.hostDifferences = hostDifferences;
  if (platform?.osLabel) host.os = platform.osLabel;
  const result: JudgingResult = {
    schemaVersion: 1,
    judgingId: options.judgingId ?? null,
    challenge: { slug: manifest.slug, version: manifest.version },
    target,
    verdict: 'JUDGE_ERROR',
    message: '',
    stages: emptyStages(),
    warnings,
    host,
    startedAt: started.toISOString(),
    finishedAt: started.toISOString(),
    durationMs: 0,
    stageDurationsMs,
  };
  const facts: VerdictFacts = { intake: { ok: false } };
  // The judging's own folder (root's), on a size-capped tmpfs: the sandbox's build folder `box/`,
  // the solution's binary copied out of it, test inputs, and one fresh folder per run.
  const scratch = await createScratch(
    options.workRoot ?? os.tmpdir(),
    scratchBytes(manifest.limits),
  );
  const workDir = scratch.dir;
  if (scratch.capBytes === null) {
    warnings.push(
      'the scratch folder is not size-capped (the runner is not root): a run could fill the disk',
    );
  }
  const boxDir = path.join(workDir, 'box');
  await mkdir(boxDir);
  // Said to a contestant whose patch maps MAP_HUGETLB pages on hosts without a pool.
  let hugePageNote: string | null = null;
  shownPaths = judgingHostPaths({
    srcDir: path.join(boxDir, 'src'),
    buildDir: path.join(boxDir, 'build'),
    boxDir,
    workDir,
    harnessDir: challenge.harnessDir,
    templateDir: challenge.templateDir,
    challengeDir: challenge.dir,
    dataDir: path.resolve(options.dataDir),
    repoRoot: REPO_ROOT,
  });
  let stage: Stage = 'intake';
  let stageStart = performance.now();
  const enter = (next: Stage) => {
    stageDurationsMs[stage] = (stageDurationsMs[stage] ?? 0) + (performance.now() - stageStart);
    stage = next;
    stageStart = performance.now();
  };

  try {
    if (!targetSpec) throw new JudgeError(`challenge ${manifest.slug} has no target ${target}`);
    if (!platform) throw new JudgeError(platformError ?? `no platform adapter for ${target}`);
    warnings.push(...platform.notes);
    if (hostDifferences.length)
      warnings.push(
        `development mode: this host differs from the benchmark definition: ${hostDifferences.join('; ')}`,
      );
    if (requestedDevMode) {
      warnings.push(
        `development mode: this host (${host.cpuVendor}, ${host.os}) does not match target ${target} ` +
          `(${targetSpec.cpuVendor}, ${targetSpec.os}); timings are not the target's`,
      );
    } else if ((await cpuVendor()) !== targetSpec.cpuVendor) {
      throw new JudgeError(
        `this host's CPU is not ${targetSpec.cpuVendor} as target ${target} requires (use dev mode)`,
      );
    }
    await options.sandbox.check();
    if (platform.runSandbox !== options.sandbox) {
      progress('intake', 0, `preparing the ${platform.runSandbox.kind} sandbox`);
      await platform.runSandbox.check();
    }
    const runSandbox = platform.runSandbox;

    // 1. Intake: parse, validate and apply the patch to a copy of the template.
    progress('intake', 0, 'checking the patch');
    const srcDir = path.join(boxDir, 'src');
    const intake = await intakePatch({ patchText: options.patchText, challenge, destDir: srcDir });
    result.stages.intake = intake.ok
      ? { ok: true, reason: null, files: intake.files, format: intake.format }
      : { ok: false, reason: intake.reason, files: [], format: null };
    facts.intake = intake.ok ? { ok: true } : { ok: false, message: intake.message };
    log(
      intake.ok
        ? `patch applies: ${intake.files.map((f) => f.path).join(', ')}`
        : `patch rejected: ${intake.message}`,
    );
    if (!intake.ok) return result;
    hugePageNote = hugePageHint(options.patchText.toString(), manifest.host?.memory);
    if (hugePageNote) warnings.push(hugePageNote);
    checkCancelled();

    // 2. Build: the baseline from the pristine template (trusted, cached), the solution in the sandbox.
    enter('build');
    progress('build', 0, 'building the baseline');
    const baseline = await buildBaseline({
      challenge,
      platform,
      dataDir: options.dataDir,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    checkCancelled();
    progress('build', 0.3, 'building the solution');
    const {
      build: solution,
      binary: solutionBinary,
      limitExceeded,
    } = await buildSolution({
      challenge,
      platform,
      sandbox: options.sandbox,
      boxDir,
      workDir,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const baselineSha = await fileSha256(baseline.binary);
    const identical = solutionBinary
      ? await binariesIdentical(baseline.binary, solutionBinary)
      : false;
    result.stages.build = {
      baseline: {
        ok: true,
        cached: baseline.cached,
        durationMs: baseline.durationMs,
        log: baseline.log,
        binarySha256: baselineSha,
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
    facts.build = {
      ok: solution.ok,
      limitExceeded: result.stages.build.solution.limitExceeded,
      firstError: solution.ok ? null : firstErrorLine(solution.log),
    };
    log(
      solution.ok
        ? `solution built in ${(solution.durationMs / 1000).toFixed(1)} s`
        : 'the solution did not build',
    );
    if (!solutionBinary) return result;

    // 3. Test: the edge cases and the public input, each checked exactly.
    enter('test');
    const cases: TestCaseResult[] = await runTests({
      challenge,
      sandbox: runSandbox,
      solutionBinary,
      baselineBinary: baseline.binary,
      baselineSha256: baselineSha,
      publicInput: options.publicInput,
      dataDir: options.dataDir,
      workDir,
      onProgress: (fraction, message) => progress('test', fraction, message),
      log,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    result.stages.test = { cases };
    facts.tests = cases;
    if (cases.some((c) => c.required && c.outcome !== 'passed')) return result;
    checkCancelled();

    // 4. Measure: B S B S … on the hidden input until the interval is tight enough.
    enter('measure');
    const statBefore = await readFile('/proc/stat', 'utf8').catch(() => '');
    const measured: MeasureOutcome = await measure({
      challenge,
      sandbox: runSandbox,
      baselineBinary: baseline.binary,
      solutionBinary,
      identicalBinaries: identical,
      benchmark: options.benchmark,
      dataDir: options.dataDir,
      workDir,
      policy,
      cpu,
      emulated: platform.mode === 'emulated',
      onProgress: (fraction, message, detail) => progress('measure', fraction, message, detail),
      log,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    result.stages.measure = measured.stage;
    facts.measuredRuns = measured.solutionOutcomes;
    warnings.push(...measured.warnings);
    // Kept in the result for the organizer, but the host's fault: JUDGE_ERROR, retried later.
    if (measured.hostTooBusy) throw new JudgeError(measured.hostTooBusy);
    if (
      measured.solutionOutcomes.every((o) => o === 'ok') &&
      !identical &&
      !platform.linuxProfile
    ) {
      result.stages.profile = {
        memory: null,
        topdown: null,
        deterministic: null,
        notes: [
          `the memory profile, Top-Down and cachegrind are Linux tools for Linux binaries: not run for ${target}`,
        ],
      };
    } else if (
      measured.solutionOutcomes.every((o) => o === 'ok') &&
      !identical &&
      options.profile !== false
    ) {
      enter('profile');
      result.stages.profile = await runProfile({
        challenge,
        sandbox: runSandbox,
        toolchain: platform.toolchain,
        baselineBinary: baseline.binary,
        baselineBuildKey: baseline.key,
        solutionBinary,
        solutionTree: srcDir,
        boxDir,
        benchmarkInput: await ensureInput(challenge, options.benchmark, options.dataDir),
        dataDir: options.dataDir,
        workDir,
        cpu,
        policy,
        onProgress: (fraction, message) => progress('profile', fraction, message),
        log,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    }
    const busy = cpuBusyShares(statBefore, await readFile('/proc/stat', 'utf8').catch(() => ''));
    const busySiblings = host.smtSiblings.filter((c) => (busy.get(c) ?? 0) > BUSY_SIBLING_SHARE);
    warnings.push(...hostConditionWarnings(host, busySiblings));
    if (!options.benchmarkSeedIsSecret) {
      warnings.push(
        'the benchmark seed is not secret (no seed configured): fine locally, not for a contest',
      );
    }
    return result;
  } catch (error) {
    if (error instanceof JudgingCancelledError || options.signal?.aborted) {
      facts.judgeError = 'the judging was cancelled';
    } else {
      facts.judgeError = error instanceof Error ? error.message : String(error);
      if (!(error instanceof JudgeError))
        log(`unexpected error: ${(error as Error).stack ?? String(error)}`);
    }
    return result;
  } finally {
    enter('report');
    const decision = decideVerdict(facts);
    result.verdict = decision.verdict;
    result.message =
      hugePageNote && decision.verdict === 'RUNTIME_ERROR'
        ? `${decision.reason} (${hugePageNote})`
        : decision.reason;
    warnings.push(...decision.warnings);
    // Everything in the result is shown to the contestant: no host path leaves the judge.
    Object.assign(result, scrubHostPaths(result, shownPaths));
    const finished = new Date();
    result.finishedAt = finished.toISOString();
    result.durationMs = finished.getTime() - started.getTime();
    progress('report', 1, `${result.verdict}: ${result.message}`);
    await scratch.dispose();
  }
}

/** The compiler's or linker's first error line, for the one-sentence verdict message. */
export function firstErrorLine(log: string): string | null {
  const line = log
    .split('\n')
    .find((l) => /\berror\b|undefined reference/i.test(l) && !l.startsWith('$ '));
  if (!line) return null;
  // Paths of the judge's work folder mean nothing to the contestant.
  const trimmed = line.replace(/^\S*\/box\/src\//, '').trim();
  return trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
}
