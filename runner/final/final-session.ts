// A final session (contracts/final.ts): the baseline and every finalist built once (side by side,
// one build per CPU: untimed work, and nothing is timed until every build has ended), then timed in
// interleaved rounds on this host by the judge's session engine (runner/judge/measure-session.ts:
// the finalists are its entrants), each round running everyone once in an order rotated by the
// round number, with the judge's own run machinery (runner/judge/measure.ts timedRun): pinned to
// one CPU, files re-warmed, outputs checked, disturbance evidence kept. A round with a disturbed
// run is started over; an entrant whose build or run fails leaves the session with its reason.
// The caller checkpoints every finished round (onRound), so a session taken over by another
// runner times only the rounds still missing.
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  BASELINE_ENTRANT,
  finalSessionResultSchema,
  type FinalRound,
  type FinalRun,
  type FinalSessionProgress,
  type FinalSessionResult,
} from '../../contracts/final';
import { hostFingerprintHash } from '../../contracts/host-fingerprint-hash';
import type { DisturbancePolicy, TargetId } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { plausibilityOf } from '../../lib/core/stats/plausibility';
import { resolveDisturbance, type DisturbanceThresholds } from '../../lib/core/stats';
import { hostConditionWarnings, hostFingerprint, judgeCpu } from '../host/fingerprint';
import { checkHostMemory } from '../host/memory';
import { firstErrorLine } from '../build';
import { intakePatch } from '../intake';
import type { Sandbox } from '../sandbox/sandbox';
import type { TargetPlatform } from '../platform';
import { binariesIdentical } from '../judge/binaries';
import { buildBaseline, buildSolution } from '../judge/build-steps';
import { createHostTurns, untimedEach } from '../judge/host-turns';
import { JudgeError, JudgingCancelledError } from '../judge/errors';
import { judgingHostPaths, scrubHostPaths, type HostPath } from '../judge/host-paths';
import {
  ensureInput,
  referenceSha256,
  warmPageCache,
  type InputSpec,
} from '../../lib/core/challenge/inputs';
import { layoutPolicyWarning, timedRun } from '../judge/measure';
import { runSession, type RoundPlan, type SessionEntrant } from '../judge/measure-session';
import { sharedLibraries } from '../judge/resident-files';
import { createScratch } from '../judge/scratch';
import {
  checkpointRounds,
  etaMs,
  exclusionsInCheckpoint,
  roundOrder,
  roundsToTime,
} from './schedule';

export interface FinalEntrant {
  id: string;
  patchText: string;
}

export interface FinalSessionOptions {
  challenge: Challenge;
  target: TargetId;
  /** The target's adapter (toolchain, run sandbox, labels): createTargetPlatform's. */
  platform: TargetPlatform;
  /** The host's sandbox: the entrants' builds run in it. */
  sandbox: Sandbox;
  /** Caches (baseline builds, inputs, expected outputs); never visible to the sandbox. */
  dataDir: string;
  /** Parent of the session's scratch folder (default: the OS temp dir). */
  workRoot?: string;
  /** The session's one benchmark input. */
  benchmark: InputSpec;
  entrants: FinalEntrant[];
  sessionId: string;
  part: number;
  runnerId: string;
  /** The round numbers this job times. */
  rounds: number[];
  /** Rounds already finished (the checkpoint): not timed again. */
  done: FinalRound[];
  /** Times a round may be started over for a disturbed run, over the whole job. */
  maxDiscardedRounds: number;
  /** Builds run side by side, at most this many at a time (default: the host's CPUs). */
  parallelBuilds?: number;
  /** CPU the timed runs are pinned to; defaults to the manifest's, else the last CPU. */
  cpu?: number;
  /** The host's sequential read bandwidth (bytes/s) for the plausibility check; null if unknown. */
  memoryBandwidth: number | null;
  /** The host does not match the target: the result is labelled. */
  devMode?: boolean;
  /** Where /proc and /sys are read for the host's memory conditions. */
  hostRoot?: string;
  /**
   * Over the manifest's disturbance thresholds (tests, benches). Its cpuTimeFallback, on by default
   * in development mode as in a judging, keeps rounds with disturbed runs (with a warning) once the
   * budget of discarded rounds is spent, instead of ending the session as the host's fault.
   */
  disturbance?: DisturbancePolicy;
  onProgress?: (progress: FinalSessionProgress) => void;
  /** Called with every finished round before the next starts (the caller checkpoints it). */
  onRound?: (round: FinalRound) => void | Promise<void>;
  onLog?: (line: string) => void;
  signal?: AbortSignal;
}

/** Builds side by side: the option, else one per CPU. */
function parallelBuilds(options: FinalSessionOptions): number {
  return Math.max(1, options.parallelBuilds ?? os.availableParallelism());
}

/** Room for the binaries and the builds running at once: the largest file each, ≥ 256 MiB. */
function scratchBytes(limits: { fileBytes: number }, builds: number): number {
  return Math.max((1 + builds) * limits.fileBytes, 256 * 2 ** 20);
}

/** What the session knows while it runs; the result is filled in as it goes. */
interface Session {
  options: FinalSessionOptions;
  result: FinalSessionResult;
  hostHash: string;
  cpu: number;
  workDir: string;
  /** Entrants still in, by id, with their binaries, in the job's order. */
  binaries: Map<string, string>;
  baselineBinary: string;
  /** Discarded attempts over the job (the checkpoint's included). */
  discarded: number;
  discardReasons: Record<string, number>;
  shownPaths: HostPath[];
  log: (line: string) => void;
}

/** What every timed run of the session shares. */
interface Timing {
  input: string;
  expectedSha256: string;
  thresholds: DisturbanceThresholds;
  libraries: string[];
}

export async function runFinalSession(options: FinalSessionOptions): Promise<FinalSessionResult> {
  const session = await openSession(options);
  const scratch = await createScratch(
    options.workRoot ?? os.tmpdir(),
    scratchBytes(options.challenge.manifest.limits, parallelBuilds(options)),
  );
  session.workDir = scratch.dir;
  if (scratch.capBytes === null)
    session.result.warnings.push(
      'the scratch folder is not size-capped (the runner is not root): a run could fill the disk',
    );
  try {
    await checkSandboxes(session);
    const buildStart = performance.now();
    await buildEverything(session);
    session.result.buildMs = performance.now() - buildStart;
    const timing = await prepareTiming(session);
    const timingStart = performance.now();
    try {
      await timeRounds(session, timing);
    } finally {
      session.result.timingMs = performance.now() - timingStart;
    }
  } catch (error) {
    if (error instanceof JudgingCancelledError || options.signal?.aborted)
      throw new JudgingCancelledError();
    session.result.judgeError = (error instanceof Error ? error.message : String(error)).slice(
      0,
      5000,
    );
    if (!(error instanceof JudgeError))
      session.log(`unexpected error: ${(error as Error).stack ?? String(error)}`);
  } finally {
    await scratch.dispose();
  }
  return finishSession(session);
}

/** The host's facts and labels, the checkpoint's rounds and exclusions: the result's skeleton. */
async function openSession(options: FinalSessionOptions): Promise<Session> {
  const { challenge, platform } = options;
  const { manifest } = challenge;
  const cpu = judgeCpu(manifest.runPolicy.cpu, options.cpu);
  const hostDifferences = await checkHostMemory(manifest.host?.memory, options.hostRoot);
  const emulated = platform.capabilities.timing === 'emulated';
  const devMode = (options.devMode ?? false) || emulated || hostDifferences.length > 0;
  const host = await hostFingerprint({
    cxx: platform.toolchain.cxx,
    sandbox: platform.sandboxLabel,
    cpu,
    devMode,
    emulated,
  });
  host.hostDifferences = hostDifferences;
  if (platform.osLabel) host.os = platform.osLabel;
  const warnings = [...platform.notes, ...hostConditionWarnings(host)];
  if (hostDifferences.length)
    warnings.push(
      `development mode: this host differs from the benchmark definition: ${hostDifferences.join('; ')}`,
    );
  else if (devMode)
    warnings.push(`development mode: this host's timings are not target ${options.target}'s`);
  const done = checkpointRounds(options.done, options.rounds);
  const result: FinalSessionResult = {
    sessionId: options.sessionId,
    part: options.part,
    runnerId: options.runnerId,
    host,
    rounds: [...done],
    excluded: exclusionsInCheckpoint(done),
    plausibility: {},
    inputBytes: 0,
    inputSha256: '',
    warnings,
    buildMs: 0,
    timingMs: 0,
    runsWallMs: 0,
    judgeError: null,
    devMode,
    emulated,
  };
  return {
    options,
    result,
    hostHash: hostFingerprintHash(host),
    cpu,
    workDir: '',
    binaries: new Map(),
    baselineBinary: '',
    discarded: done.reduce((sum, r) => sum + r.discardedAttempts, 0),
    discardReasons: {},
    shownPaths: [],
    log: (line) => options.onLog?.(line),
  };
}

function progress(
  session: Session,
  stage: FinalSessionProgress['stage'],
  message: string,
  extra: Partial<Pick<FinalSessionProgress, 'etaMs' | 'round'>> = {},
): void {
  const { options, result } = session;
  options.onProgress?.({
    sessionId: options.sessionId,
    part: options.part,
    stage,
    roundsDone: result.rounds.length,
    roundsPlanned: new Set(options.rounds).size,
    etaMs: extra.etaMs ?? null,
    message: message.slice(0, 500),
    round: extra.round,
  });
}

async function checkSandboxes(session: Session): Promise<void> {
  const { sandbox, platform } = session.options;
  await sandbox.check();
  if (platform.runSandbox !== sandbox) await platform.runSandbox.check();
}

function exclude(session: Session, entrantId: string, reason: string): void {
  session.binaries.delete(entrantId);
  if (session.result.excluded.some((e) => e.entrantId === entrantId)) return;
  session.result.excluded.push({ entrantId, reason: reason.slice(0, 1000) });
  session.log(`entrant ${entrantId} excluded: ${reason}`);
}

/**
 * The baseline (cached) and every entrant not excluded yet, each once, as a judging builds them:
 * side by side in untimed turns (runner/judge/host-turns.ts), at most one per CPU. Nothing is
 * timed before the last has ended; the binaries are kept in the entrants' order.
 */
async function buildEverything(session: Session): Promise<void> {
  const { options } = session;
  const { challenge, platform, signal } = options;
  progress(session, 'build', 'building the baseline');
  const baseline = await buildBaseline({
    challenge,
    platform,
    dataDir: options.dataDir,
    signal,
  });
  session.baselineBinary = baseline.binary;
  const excludedAlready = new Set(session.result.excluded.map((e) => e.entrantId));
  const entrants = options.entrants.filter((e) => !excludedAlready.has(e.id));
  const turns = createHostTurns(parallelBuilds(options));
  const binaries = await untimedEach(turns, entrants, async (entrant, index) => {
    if (signal?.aborted) throw new JudgingCancelledError();
    progress(session, 'build', `building entrant ${index + 1} of ${entrants.length}`);
    session.log(`entrant ${entrant.id}: build started`);
    return buildEntrant(session, entrant, index);
  });
  for (const [index, entrant] of entrants.entries()) {
    const binary = binaries[index];
    if (!binary) continue;
    session.binaries.set(entrant.id, binary);
    if (await binariesIdentical(baseline.binary, binary))
      session.result.warnings.push(
        `entrant ${entrant.id} compiles to the same machine code as the baseline (timed all the same)`,
      );
  }
}

/** Intake and the sandboxed build of one entrant; null (and excluded) when either fails. */
async function buildEntrant(
  session: Session,
  entrant: FinalEntrant,
  index: number,
): Promise<string | null> {
  const { challenge, platform, sandbox, signal } = session.options;
  const boxDir = path.join(session.workDir, `box-${index}`);
  await mkdir(boxDir);
  const srcDir = path.join(boxDir, 'src');
  session.shownPaths.push(
    ...judgingHostPaths({
      srcDir,
      buildDir: path.join(boxDir, 'build'),
      boxDir,
      workDir: session.workDir,
      harnessDir: challenge.harnessDir,
      templateDir: challenge.templateDir,
      challengeDir: challenge.dir,
      dataDir: path.resolve(session.options.dataDir),
      repoRoot: REPO_ROOT,
    }),
  );
  try {
    const intake = await intakePatch({ patchText: entrant.patchText, challenge, destDir: srcDir });
    if (!intake.ok) {
      exclude(session, entrant.id, `the patch was rejected: ${intake.message}`);
      return null;
    }
    const built = await buildSolution({
      challenge,
      platform,
      sandbox,
      boxDir,
      dataDir: session.options.dataDir,
      workDir: session.workDir,
      binaryName: `entrant-${index}`,
      signal,
    });
    if (!built.binary) {
      const why = built.limitExceeded
        ? `exceeded the build's ${built.limitExceeded} limit`
        : (firstErrorLine(built.build.log) ?? built.build.message ?? 'see the build log');
      exclude(session, entrant.id, `did not build: ${why}`);
      return null;
    }
    session.log(`entrant ${entrant.id} built in ${(built.build.durationMs / 1000).toFixed(1)} s`);
    return built.binary;
  } finally {
    // Only the binary (copied out) is needed from here on.
    await rm(boxDir, { recursive: true, force: true });
  }
}

/** The session's input and its reference output, in the page cache; the disturbance rules. */
async function prepareTiming(session: Session): Promise<Timing> {
  const { challenge, benchmark, dataDir } = session.options;
  progress(session, 'build', 'preparing the benchmark input');
  const input = await ensureInput(challenge, benchmark, dataDir);
  session.result.inputBytes = input.bytes;
  session.result.inputSha256 = input.sha256;
  const expectedSha256 = await referenceSha256(challenge, input, dataDir);
  await warmPageCache(input.path);
  const { runPolicy } = challenge.manifest;
  const aslrWarning = await layoutPolicyWarning();
  if (aslrWarning) session.result.warnings.push(aslrWarning);
  const policy: DisturbancePolicy = { ...runPolicy.disturbance, ...session.options.disturbance };
  // A development-mode host's timings are not the target's anyway (as in judge.ts).
  policy.cpuTimeFallback ??= session.result.devMode;
  return {
    input: input.path,
    expectedSha256,
    thresholds: resolveDisturbance(policy, runPolicy.maxPairs),
    libraries: await sharedLibraries(session.baselineBinary),
  };
}

/** One run of one entrant (or the baseline) on the session's input. */
async function runEntrant(session: Session, timing: Timing, entrant: string): Promise<FinalRun> {
  const { options } = session;
  const binary =
    entrant === BASELINE_ENTRANT ? session.baselineBinary : session.binaries.get(entrant);
  if (!binary) throw new Error(`no binary for entrant ${entrant}`);
  const run = await timedRun({
    sandbox: options.platform.runSandbox,
    binary,
    input: timing.input,
    expectedSha256: timing.expectedSha256,
    workDir: session.workDir,
    limits: options.challenge.manifest.limits,
    cpu: session.cpu,
    resident: [timing.input, binary, ...timing.libraries],
    thresholds: timing.thresholds,
    emulated: options.platform.capabilities.timing === 'emulated',
    signal: options.signal,
  });
  session.result.runsWallMs += run.result.wallTimeMs;
  const failure = run.correct
    ? null
    : run.outcome === 'passed'
      ? 'wrong output: it differs from the reference implementation on the benchmark input'
      : run.message;
  return {
    entrant,
    wallMs: run.result.wallTimeMs,
    cpuMs: run.result.userTimeMs + run.result.sysTimeMs,
    correct: run.correct,
    failure: failure?.slice(0, 500) ?? null,
    evidence: run.evidence,
  };
}

/** A failed baseline run ends the session: without it no round has a ratio (the host's fault). */
function checkBaseline(run: FinalRun): FinalRun {
  if (!run.correct)
    throw new JudgeError(`the baseline failed on the benchmark input: ${run.failure ?? ''}`);
  return run;
}

/**
 * Every round not in the checkpoint, timed by the session engine (runner/judge/measure-session.ts)
 * with the finalists as its entrants: one untimed run each first (the baseline's, then theirs),
 * then each round in the rotated order, handed to onRound as soon as it is kept.
 */
async function timeRounds(session: Session, timing: Timing): Promise<void> {
  progress(session, 'rounds', 'warming up');
  const now = { round: 0 };
  const ids = new Map<SessionEntrant<FinalRun>, string>();
  for (const id of session.binaries.keys()) ids.set(finalist(session, timing, id, now), id);
  await runSession({
    plan: finalPlan(session, timing, ids, now),
    baseline: {
      warmups: 1,
      // Its own: the baseline still runs once every finalist has left (the rounds are the job's).
      signal: session.options.signal ?? new AbortController().signal,
      run: async () => checkBaseline(await runEntrant(session, timing, BASELINE_ENTRANT)),
    },
    entrants: [...ids.keys()],
  });
}

/** A finalist in the engine: its runs, excluded (and leaving) at its first failed one. */
function finalist(
  session: Session,
  timing: Timing,
  id: string,
  now: { round: number },
): SessionEntrant<FinalRun> {
  const runChecked = async (when: () => string) => {
    const run = await runEntrant(session, timing, id);
    if (!run.correct) exclude(session, id, `${when()}: ${run.failure ?? 'the run failed'}`);
    return run;
  };
  return {
    signal: session.options.signal,
    workDir: session.workDir,
    warmUp: async () => (await runChecked(() => 'warm-up')).correct,
    runTimed: () => runChecked(() => `round ${now.round + 1}`),
    // No stop rule of its own: it is timed in every round of the job.
    afterRound: () => false,
    leaves: (own) => !own.correct,
  };
}

/**
 * The job's rounds as the engine's plan: the rounds not in the checkpoint, in the job's order,
 * each in the rotated order of the entrants still in; an attempt with a disturbed run is timed
 * again (within the job's budget), and every kept round is recorded and handed to onRound.
 */
function finalPlan(
  session: Session,
  timing: Timing,
  ids: ReadonlyMap<SessionEntrant<FinalRun>, string>,
  now: { round: number },
): RoundPlan<FinalRun> {
  const { options, result } = session;
  const todo = roundsToTime(options.rounds, result.rounds);
  const paceMs: number[] = [];
  let next = 0;
  let started = 0;
  let keepDisturbed = false;
  return {
    oneJob: true,
    next() {
      if (next >= todo.length) return null;
      started = performance.now();
      now.round = todo[next++]!;
      return now.round;
    },
    order(number, entrants) {
      keepDisturbed = spentDiscards(session, timing);
      const byId = new Map(entrants.map((e) => [ids.get(e)!, e]));
      return roundOrder(number, [...byId.keys()]).map((id) => byId.get(id) ?? null);
    },
    wallMs: (run) => run.wallMs,
    startOver: (run) => !keepDisturbed && discardAttempt(session, timing, run, now.round),
    async kept(number, runs, discardedAttempts) {
      paceMs.push(performance.now() - started);
      const round: FinalRound = {
        round: number,
        order: runs.map((r) => r.entrant),
        runs,
        discardedAttempts,
        hostFingerprintHash: session.hostHash,
        finishedAt: new Date().toISOString(),
      };
      result.rounds.push(round);
      result.rounds.sort((a, b) => a.round - b.round);
      await options.onRound?.(round);
      progress(
        session,
        'rounds',
        `round ${number + 1} done (${result.rounds.length} of ${new Set(options.rounds).size})` +
          (discardedAttempts ? `, ${discardedAttempts} attempt(s) discarded` : ''),
        { etaMs: etaMs(paceMs, todo.length - next), round },
      );
    },
  };
}

/**
 * A disturbed run starts its round over (the attempt is discarded), within the job's budget of
 * discarded rounds: true when it does; beyond the budget the host is too busy (thrown).
 */
function discardAttempt(session: Session, timing: Timing, run: FinalRun, round: number): boolean {
  const disturbed = run.evidence?.disturbed ?? [];
  if (!disturbed.length) return false;
  session.discarded++;
  for (const reason of disturbed)
    session.discardReasons[reason] = (session.discardReasons[reason] ?? 0) + 1;
  session.log(`round ${round + 1}: attempt discarded (disturbed: ${disturbed.join(', ')})`);
  if (session.discarded > session.options.maxDiscardedRounds && !timing.thresholds.cpuTimeFallback)
    throw new JudgeError(
      `host too busy: ${describeAttempts(session)} were disturbed by other work on the pinned ` +
        `CPU, more than the ${session.options.maxDiscardedRounds} rounds this job may start ` +
        "over (the host's fault, not the entrants')",
    );
  return true;
}

function describeAttempts(session: Session): string {
  const reasons = Object.entries(session.discardReasons)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`);
  const n = session.discarded;
  return `${n} round attempt${n === 1 ? '' : 's'}${reasons.length ? ` (${reasons.join(', ')})` : ''}`;
}

/**
 * Whether the budget of discarded rounds is spent and the fallback keeps disturbed runs from now
 * on; said once in the warnings.
 */
function spentDiscards(session: Session, timing: Timing): boolean {
  if (!timing.thresholds.cpuTimeFallback) return false;
  if (session.discarded < session.options.maxDiscardedRounds) return false;
  const warning =
    `the host was too busy for clean rounds: after ${describeAttempts(session)} discarded, ` +
    'rounds keep their disturbed runs (development mode: noisier timings, labelled)';
  if (!session.result.warnings.some((w) => w.startsWith('the host was too busy for clean rounds')))
    session.result.warnings.push(warning);
  return true;
}

/** Plausibility of every entrant's fastest correct run; host paths scrubbed; the contract checked. */
function finishSession(session: Session): FinalSessionResult {
  const { result, options } = session;
  const excluded = new Set(result.excluded.map((e) => e.entrantId));
  for (const entrant of options.entrants) {
    if (excluded.has(entrant.id)) continue;
    const times = result.rounds.flatMap((r) =>
      r.runs.filter((run) => run.entrant === entrant.id && run.correct).map((run) => run.wallMs),
    );
    if (!times.length) continue;
    result.plausibility[entrant.id] = plausibilityOf({
      inputBytes: result.inputBytes,
      fastestMs: Math.min(...times),
      bandwidthBytesPerSecond: options.memoryBandwidth,
    });
  }
  result.warnings = result.warnings.map((w) => w.slice(0, 2000)).slice(0, 200);
  const paths = [...session.shownPaths].sort((a, b) => b.host.length - a.host.length);
  progress(
    session,
    'done',
    result.judgeError ?? `${result.rounds.length} rounds, ${result.excluded.length} excluded`,
  );
  return finalSessionResultSchema.parse(scrubHostPaths(result, paths));
}
