// What every step of one judging shares (runner/judge/judge.ts runs the steps): the options, the
// policy, the target's platform, the result being filled in and the facts the verdict is decided
// from, the scratch folder, and the progress, log and stage-timing helpers. Everything here is set
// up before the first stage; the stages (judge-stages.ts) then only read it or add to the result.
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type {
  HostFingerprint,
  JudgingResult,
  ProgressEvent,
  RunPolicy,
  Stage,
  Target,
  TargetId,
} from '../../contracts';
import { newJudgingResult } from '../../contracts';
import type { InputSpec } from '../../lib/core/challenge/inputs';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { hostFingerprint, judgeCpu } from '../host/fingerprint';
import { checkHostMemory } from '../host/memory';
import type { Sandbox } from '../sandbox/sandbox';
import { createTargetPlatform, type TargetPlatform } from '../platform';
import { JudgingCancelledError } from './errors';
import { soloTurns, type HostTurns } from './host-turns';
import { createMeasureSessions, type MeasureSessions } from './measure-session';
import { judgingHostPaths, scrubText, type HostPath } from './host-paths';
import { createScratch, type Scratch } from './scratch';
import type { VerdictFacts } from './verdict';

export interface JudgeOptions {
  challenge: Challenge;
  target: TargetId;
  patchText: string | Buffer;
  /** The host's sandbox: builds run in it (and, unless the platform says otherwise, programs). */
  sandbox: Sandbox;
  /**
   * The target's adapter (toolchain, run sandbox, labels); by default the one for this host and
   * target (runner/platform createTargetPlatform): native Linux, native Windows, or Windows emulated under Wine.
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
  /**
   * Why the profile stage leaves out cachegrind although the manifest asks for it (the contest's
   * setting, a runner's development knob): the result carries it as the part's note.
   */
  cachegrindOff?: string;
  /**
   * The host's sequential read bandwidth in bytes/s (runner/host/memory-bandwidth.ts), for the
   * measure stage's plausibility check; null when it could not be measured. Absent: no check.
   */
  memoryBandwidth?: number | null;
  /**
   * The host this judging shares with others (a runner's): turns for what runs programs, and the
   * measure sessions that share the baseline's runs. Absent: the judging has the host to itself.
   */
  sharing?: HostSharing;
}

export interface HostSharing {
  turns: HostTurns;
  sessions: MeasureSessions;
}

/** The judging's folders: the scratch folder, the sandbox's build folder in it, the patched tree. */
export interface JudgingDirs {
  workDir: string;
  boxDir: string;
  srcDir: string;
}

export interface JudgingContext {
  options: JudgeOptions;
  challenge: Challenge;
  target: TargetId;
  /** The manifest's definition of the target; absent when the challenge has no such target. */
  targetSpec: Target | undefined;
  policy: RunPolicy;
  cpu: number;
  /** The target's adapter, or null (with `platformError` saying why) when there is none. */
  platform: TargetPlatform | null;
  platformError: string | null;
  /** Development mode asked for (or implied by emulation), as opposed to implied by the host's memory. */
  requestedDevMode: boolean;
  hostDifferences: string[];
  host: HostFingerprint;
  started: Date;
  result: JudgingResult;
  /** What the verdict is decided from (verdict.ts), filled in stage by stage. */
  facts: VerdictFacts;
  /** The result's warnings (the same array), added to by every stage. */
  warnings: string[];
  scratch: Scratch;
  dirs: JudgingDirs;
  /** The runner's folders as a contestant is shown them: scrubbed from everything shown. */
  shownPaths: HostPath[];
  /** Said to a contestant whose patch maps MAP_HUGETLB pages on hosts without a pool. */
  hugePageNote: string | null;
  /** The stage being timed and since when (performance.now()). */
  clock: { stage: Stage; since: number };
  /** Turns on the host and its measure sessions (a session of one when alone). */
  sharing: HostSharing;
}

/** Room for everything a judging writes: twice the largest file, at least 256 MiB. */
function scratchBytes(limits: { fileBytes: number }): number {
  return Math.max(2 * limits.fileBytes, 256 * 2 ** 20);
}

/**
 * Everything the stages share: the policy, the platform, the host's conditions and fingerprint
 * (labelled by the platform), the result skeleton (which holds the fingerprint), the scratch
 * folder. A missing target or platform is not thrown here: preflight fails on it, inside the
 * judging, so it still ends in a result with a verdict.
 */
/**
 * The manifest's run policy with the judging's own settings over it. A budget below the manifest's
 * least pairs (`--runs 5`, a quick test) lowers the least too, unless the settings name one.
 */
export function judgingPolicy(manifest: RunPolicy, overrides?: Partial<RunPolicy>): RunPolicy {
  const policy: RunPolicy = { ...manifest, ...overrides };
  if (overrides?.minPairs === undefined)
    policy.minPairs = Math.min(policy.minPairs, policy.maxPairs);
  return policy;
}

export async function createJudgingContext(options: JudgeOptions): Promise<JudgingContext> {
  const started = new Date();
  const { challenge, target } = options;
  const { manifest } = challenge;
  const targetSpec = manifest.targets[target];
  const policy = judgingPolicy(manifest.runPolicy, options.runPolicy);
  const cpu = judgeCpu(policy.cpu, options.cpu);
  const { platform, platformError } = await preparePlatform(options, targetSpec);
  const conditions = await hostConditions(options, platform);
  applyDevModePolicy(policy, conditions.devMode);
  const host = await describeHost(options, targetSpec, platform, cpu, conditions);
  const warnings: string[] = [];
  const result = createResultSkeleton(options, host, started, warnings);
  const { scratch, dirs } = await prepareWorkspace(options, warnings);
  return {
    options,
    challenge,
    target,
    targetSpec,
    policy,
    cpu,
    platform,
    platformError,
    requestedDevMode: conditions.requestedDevMode,
    hostDifferences: conditions.hostDifferences,
    host,
    started,
    result,
    facts: { intake: { ok: false } },
    warnings,
    scratch,
    dirs,
    shownPaths: shownPathsFor(options, dirs),
    hugePageNote: null,
    clock: { stage: 'intake', since: performance.now() },
    sharing: options.sharing ?? {
      turns: soloTurns,
      sessions: createMeasureSessions(soloTurns),
    },
  };
}

/** The caller's platform, else the one for this host and target; a failure is kept, not thrown. */
async function preparePlatform(
  options: JudgeOptions,
  targetSpec: Target | undefined,
): Promise<{ platform: TargetPlatform | null; platformError: string | null }> {
  if (options.platform) return { platform: options.platform, platformError: null };
  if (!targetSpec) return { platform: null, platformError: null };
  try {
    const platform = await createTargetPlatform({
      target: targetSpec,
      sandbox: options.sandbox,
      dataDir: options.dataDir,
      log: (line) => options.onLog?.(line),
    });
    return { platform, platformError: null };
  } catch (error) {
    return { platform: null, platformError: (error as Error).message };
  }
}

interface HostConditions {
  requestedDevMode: boolean;
  hostDifferences: string[];
  devMode: boolean;
}

/** Whether this judging runs in development mode, and the host's differences that make it so. */
async function hostConditions(
  options: JudgeOptions,
  platform: TargetPlatform | null,
): Promise<HostConditions> {
  // An emulated target is never the target's hardware: always labelled development mode too.
  const requestedDevMode =
    (options.devMode ?? false) || platform?.capabilities.timing === 'emulated';
  // A host whose memory differs from the benchmark definition's (THP, huge page pool) measures
  // something else: its results are labelled (the runner refuses such a host at start-up).
  const hostDifferences = await checkHostMemory(
    options.challenge.manifest.host?.memory,
    options.hostRoot,
  );
  return {
    requestedDevMode,
    hostDifferences,
    devMode: requestedDevMode || hostDifferences.length > 0,
  };
}

/**
 * A development-mode host's timings are not the target's anyway: when it is too busy for clean
 * pairs, a labelled CPU-time estimate serves its user better than a retry, unless a policy says.
 */
function applyDevModePolicy(policy: RunPolicy, devMode: boolean): void {
  if (devMode && policy.disturbance?.cpuTimeFallback === undefined)
    policy.disturbance = { ...policy.disturbance, cpuTimeFallback: true };
}

async function describeHost(
  options: JudgeOptions,
  targetSpec: Target | undefined,
  platform: TargetPlatform | null,
  cpu: number,
  conditions: HostConditions,
): Promise<HostFingerprint> {
  const host = await hostFingerprint({
    cxx: platform?.toolchain.cxx ?? targetSpec?.toolchain.cxx ?? 'c++',
    sandbox: platform?.sandboxLabel ?? options.sandbox.kind,
    cpu,
    devMode: conditions.devMode,
    emulated: platform?.capabilities.timing === 'emulated',
  });
  host.hostDifferences = conditions.hostDifferences;
  if (platform?.osLabel) host.os = platform.osLabel;
  return host;
}

/** The result every outcome fills in: no stage run yet, the verdict still to be decided. */
export function createResultSkeleton(
  options: JudgeOptions,
  host: HostFingerprint,
  started: Date,
  warnings: string[],
): JudgingResult {
  const { manifest } = options.challenge;
  const result = newJudgingResult({
    judgingId: options.judgingId ?? null,
    challenge: { slug: manifest.slug, version: manifest.version },
    target: options.target,
    host,
    startedAt: started,
    warnings,
  });
  result.stageDurationsMs = {};
  return result;
}

/**
 * The judging's own folder (root's), on a size-capped tmpfs: the sandbox's build folder `box/`,
 * the solution's binary copied out of it, test inputs, and one fresh folder per run.
 */
async function prepareWorkspace(
  options: JudgeOptions,
  warnings: string[],
): Promise<{ scratch: Scratch; dirs: JudgingDirs }> {
  const scratch = await createScratch(
    options.workRoot ?? os.tmpdir(),
    scratchBytes(options.challenge.manifest.limits),
  );
  if (scratch.capBytes === null) {
    warnings.push(
      'the scratch folder is not size-capped (the runner is not root): a run could fill the disk',
    );
  }
  const boxDir = path.join(scratch.dir, 'box');
  await mkdir(boxDir);
  return { scratch, dirs: { workDir: scratch.dir, boxDir, srcDir: path.join(boxDir, 'src') } };
}

function shownPathsFor(options: JudgeOptions, dirs: JudgingDirs): HostPath[] {
  const { challenge } = options;
  return judgingHostPaths({
    srcDir: dirs.srcDir,
    buildDir: path.join(dirs.boxDir, 'build'),
    boxDir: dirs.boxDir,
    workDir: dirs.workDir,
    harnessDir: challenge.harnessDir,
    templateDir: challenge.templateDir,
    challengeDir: challenge.dir,
    dataDir: path.resolve(options.dataDir),
    repoRoot: REPO_ROOT,
  });
}

/** A progress event, its message clamped and free of host paths. */
export function progress(
  ctx: JudgingContext,
  stage: Stage,
  fraction: number,
  message: string,
  detail?: ProgressEvent['detail'],
): void {
  ctx.options.onProgress?.({
    stage,
    fraction: Math.min(1, Math.max(0, fraction)),
    message: scrubText(message, ctx.shownPaths).slice(0, 500),
    detail,
  });
}

export function log(ctx: JudgingContext, line: string): void {
  ctx.options.onLog?.(line);
}

export function checkCancelled(ctx: JudgingContext): void {
  if (ctx.options.signal?.aborted) throw new JudgingCancelledError();
}

/** Closes the current stage's time (added to what it had) and starts timing `next`. */
export function enterStage(ctx: JudgingContext, next: Stage): void {
  const durations = ctx.result.stageDurationsMs;
  const { stage, since } = ctx.clock;
  durations[stage] = (durations[stage] ?? 0) + (performance.now() - since);
  ctx.clock = { stage: next, since: performance.now() };
}
