// The runner service: a BullMQ worker on one target's judge queue that runs the judge library,
// one judging at a time per host. It needs Redis only — never the database (README.md, Architecture).
//
// Locks: BullMQ renews each active job's lock every lockDuration/4 from this process's event loop;
// a runner that dies stops renewing, its lock expires and the next stalled check (stalledInterval,
// run by any live worker of the queue) moves the job back to wait, so another runner takes it
// about lockDuration + stalledInterval later (≈ 75 s with the defaults) — however long judgings
// last. maxStalledCount 2: a job whose runners die twice is still retried; a third time fails it.
import os from 'node:os';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { judgeQueueName, type HostFingerprint, type Target, type TargetId } from '../../contracts';
import { settleWithin } from '../../lib/async/timeout';
import { CHALLENGES_DIR, listChallenges, type Challenge } from '../../lib/challenge/load-manifest';
import { challengeSecret } from '../../lib/config/env';
import { createWorkerConnection } from '../../lib/queue/connection';
import { cpuVendor, hostFingerprint } from '../host/fingerprint';
import { checkHostMemory } from '../host/memory';
import type { Sandbox } from '../sandbox/sandbox';
import { wineVersion } from '../windows/wine-prefix';
import { canCrossCompile } from '../windows/portability-check';
import { WineSandbox } from '../windows/wine-sandbox';
import { startHeartbeat, type CurrentJob, type Heartbeat } from './heartbeat';
import { DEFAULT_HOST_LOCK_FILE } from './host-lock';
import { startHostProbe } from './host-probe';
import {
  CANCEL_LOCK_LOST,
  CANCEL_SHUTDOWN,
  createJudgingProcessor,
  type JudgingProcessor,
  type JudgingSettings,
} from './judging-processor';
import { DEFAULT_WORK_ROOT, prepareWorkRoot } from './work-root';
import { createFinalSessionProcessor, isFinalSessionJob } from './final-session-processor';

export const DEFAULT_GRACE_SECONDS = 600;
export const DEFAULT_LOCK_DURATION_MS = 60_000;
export const DEFAULT_STALLED_INTERVAL_MS = 15_000;
export const DEFAULT_MAX_STALLED_COUNT = 2;
/** The end of the grace period kept for handing the job back (at most half of it). */
const HAND_BACK_MS = 10_000;
/** What a forced close may still take once Redis has not answered. */
const FORCED_CLOSE_MS = 2_000;
/** Fallback retention when the producer sets none: results are recorded by then. */
const KEEP_COMPLETED = { age: 7 * 24 * 3600 };
const KEEP_FAILED = { age: 30 * 24 * 3600 };

/** A runner that must not start: bad configuration or a host that does not match its target. */
export class RunnerConfigError extends Error {
  override name = 'RunnerConfigError';
}

export interface RunnerServiceOptions {
  target: TargetId;
  redisUrl: string;
  /** BullMQ key prefix (PERFJUDGE_QUEUE_PREFIX). */
  prefix: string;
  /** Default: <hostname>-<target>-<pid>. */
  runnerId?: string;
  /** Run on a host that does not match the target, labelling every result. */
  devMode?: boolean;
  /** Judge a Windows target emulated when the host is Linux with Wine (default true). */
  emulate?: boolean;
  cpu?: number;
  sandbox: Sandbox;
  dataDir: string;
  workRoot?: string;
  hostLockFile?: string;
  /** How long a shutdown waits for the current judging before handing it back. */
  graceSeconds?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  /**
   * Development knobs (only with devMode: they change what is measured). The benchmark input is
   * never one of them: every contest job carries its own (contracts/jobs.ts jobBenchmarkSchema).
   */
  publicBytes?: number;
  maxPairs?: number;
  deterministic?: boolean;
  progressIntervalMs?: number;
  heartbeatIntervalMs?: number;
  secret?: (name: string) => string | undefined;
  log?: (line: string) => void;
  /** Where /proc and /sys are read for the host conditions check (tests: recorded files). */
  hostRoot?: string;
  /** Measure the host report (noise, timing settings) at start-up into the heartbeat. */
  hostReport?: boolean;
}

export interface RunnerService {
  runnerId: string;
  target: TargetId;
  worker: Worker;
  /** Stops taking jobs, lets the current judging finish within the grace period, then closes. */
  shutdown(reason: string): Promise<void>;
  /** Cancels the current judging and hands its job back to the queue now. */
  handBack(reason: string): void;
  readonly stopping: boolean;
  /** Resolves once the service has shut down. */
  closed: Promise<void>;
}

const HOST_OS: Record<string, Target['os']> = { linux: 'linux', win32: 'windows' };

export interface HostMatch {
  matches: boolean;
  /** A Windows target on a Linux host that has Wine: judged emulated. */
  emulated: boolean;
  /** `wine --version` when emulated. */
  wine: string | null;
  hostOs: string;
  hostVendor: string;
  target: Target;
}

export async function targetHostMatch(target: Target): Promise<HostMatch> {
  const hostOs = HOST_OS[process.platform] ?? process.platform;
  const hostVendor = await cpuVendor();
  const wine = target.os === 'windows' && hostOs === 'linux' ? await wineVersion() : null;
  return {
    matches: hostOs === target.os && hostVendor === target.cpuVendor,
    emulated: wine !== null,
    wine,
    hostOs,
    hostVendor,
    target,
  };
}

/** Every challenge on disk that has this target. */
export async function challengesForTarget(target: TargetId): Promise<Challenge[]> {
  return (await listChallenges()).filter((challenge) => challenge.manifest.targets[target]);
}

/**
 * The manifests' host conditions (memory: THP, huge page pool) are part of the benchmark: a host
 * that differs refuses to start, or in development mode says so (each judging labels its result).
 */
async function checkHostConditions(
  challenges: Challenge[],
  options: { devMode: boolean; log: (line: string) => void; root?: string },
): Promise<void> {
  const differences: string[] = [];
  for (const c of challenges)
    for (const d of await checkHostMemory(c.manifest.host?.memory, options.root))
      differences.push(`${c.manifest.slug}: ${d}`);
  if (!differences.length) return;
  if (!options.devMode)
    throw new RunnerConfigError(
      `this host's memory is not what the benchmark definition says a judge host provides: ` +
        `${differences.join('; ')}. Fix the host, or start with --dev-mode (results labelled).`,
    );
  options.log(`development mode: ${differences.join('; ')}`);
}

function defaultRunnerId(target: TargetId): string {
  const host = os.hostname().replace(/[^A-Za-z0-9._-]/g, '-') || 'host';
  return `${host}-${target}-${process.pid}`;
}

/** Logs a repeated message (Redis down: one error per reconnect) at most every 30 s. */
function throttled(log: (line: string) => void): (line: string) => void {
  const last = new Map<string, number>();
  return (line) => {
    const now = Date.now();
    if (now - (last.get(line) ?? 0) < 30_000) return;
    last.set(line, now);
    log(line);
  };
}

export async function startRunnerService(options: RunnerServiceOptions): Promise<RunnerService> {
  const { target } = options;
  const runnerId = options.runnerId ?? defaultRunnerId(target);
  const log =
    options.log ??
    ((line: string) =>
      process.stderr.write(`${new Date().toISOString()} runner ${runnerId}: ${line}\n`));
  const secret = options.secret ?? challengeSecret;

  // 1. Refuse what would produce wrong or unlabelled results, before touching the queue.
  const challenges = await challengesForTarget(target);
  const first = challenges[0];
  const spec = first?.manifest.targets[target];
  if (!first || !spec)
    throw new RunnerConfigError(`no challenge in ${CHALLENGES_DIR} has target ${target}`);
  const match = await targetHostMatch(spec);
  // A Windows target on a Linux host with Wine is emulated (runner/windows/target-platform.ts):
  // never the target's hardware, so always development mode, and labelled so in every result.
  const emulated = match.emulated && options.emulate !== false;
  const devMode = (options.devMode ?? false) || emulated;
  const knobs = [
    options.publicBytes !== undefined && '--public-size',
    options.maxPairs !== undefined && '--runs',
    options.deterministic === false && '--no-deterministic',
  ].filter(Boolean);
  if (knobs.length && !devMode)
    throw new RunnerConfigError(
      `${knobs.join(', ')} change what is measured: only allowed with --dev-mode, whose results are labelled`,
    );
  await checkHostConditions(challenges, {
    devMode,
    log,
    ...(options.hostRoot ? { root: options.hostRoot } : {}),
  });
  if (!match.matches && !devMode)
    throw new RunnerConfigError(
      `this host (${match.hostOs}, ${match.hostVendor}) does not match target ${target} ` +
        `(${spec.os}, ${spec.cpuVendor}): refusing to judge for it. Start with --dev-mode to run ` +
        'anyway for development; every result is then labelled development mode.',
    );
  // The seed normally travels in the job (the platform's); this runner's variable is only the
  // fallback for a platform that knows none, and a job with no seed at all is refused then.
  const missing = challenges
    .map((c) => c.manifest.inputs.benchmark.seedEnv)
    .filter((name) => secret(name) === undefined);
  if (missing.length && !devMode)
    log(
      `${[...new Set(missing)].join(', ')} not set here: judging only jobs that carry their ` +
        'benchmark seed (set by the platform from the console or its own variable)',
    );
  try {
    await options.sandbox.check();
  } catch (error) {
    throw new RunnerConfigError(
      `the ${options.sandbox.kind} sandbox does not work here: ${(error as Error).message}`,
    );
  }
  if (emulated) {
    // Builds the helper with MinGW and initializes the Wine prefix now (once, ~10-30 s, logged),
    // so the first judging does not pay for it and a broken Wine stops the runner at start.
    try {
      await new WineSandbox({ linux: options.sandbox, dataDir: options.dataDir, log }).check();
    } catch (error) {
      throw new RunnerConfigError(`Wine does not work here: ${(error as Error).message}`);
    }
  }
  const workRoot = options.workRoot ?? DEFAULT_WORK_ROOT;
  const unreachable = await prepareWorkRoot(workRoot);
  if (unreachable)
    throw new RunnerConfigError(
      `work root ${workRoot}: ${unreachable}, so the sandbox could not reach the judgings' folders`,
    );
  const host: HostFingerprint = await hostFingerprint({
    cxx: spec.toolchain.cxx,
    sandbox: emulated ? `wine (job helper) in ${options.sandbox.kind}` : options.sandbox.kind,
    ...(options.cpu !== undefined ? { cpu: options.cpu } : {}),
    devMode,
    emulated,
  });
  if (emulated)
    log(
      `emulated: ${target} (${spec.os}, ${spec.cpuVendor}) under ${match.wine} on this Linux host; ` +
        'development mode, every result is labelled emulated',
    );
  else if (devMode)
    log(
      match.matches
        ? `development mode (the host matches ${target}, but results are labelled anyway)`
        : `development mode: this host (${match.hostOs}, ${match.hostVendor}) is not ${target} ` +
            `(${spec.os}, ${spec.cpuVendor}); every result is labelled`,
    );

  // 2. Redis: one connection for the worker's commands and the heartbeat (BullMQ adds its own
  //    blocking connection), waiting out outages rather than failing.
  const logRedis = throttled(log);
  const connection: Redis = createWorkerConnection({
    url: options.redisUrl,
    connectionName: `perfjudge-runner-${runnerId}`,
    onError: (error) => logRedis(`redis: ${error.message}`),
  });
  const startedAt = new Date().toISOString();
  const heartbeat: Heartbeat = startHeartbeat({
    redis: connection,
    prefix: options.prefix,
    runner: {
      runnerId,
      target,
      hostname: host.hostname,
      cpuModel: host.cpuModel,
      cpuVendor: host.cpuVendor,
      devMode,
      emulated: host.emulated,
      startedAt,
    },
    ...(options.heartbeatIntervalMs ? { intervalMs: options.heartbeatIntervalMs } : {}),
    onError: (error) => logRedis(`heartbeat: ${error.message}`),
  });
  // The host's noise and timing conditions, measured once in the background (issue 12 item 7).
  const hostProbe = options.hostReport
    ? startHostProbe({
        challenge: first,
        sandbox: options.sandbox,
        dataDir: options.dataDir,
        ...(options.cpu !== undefined ? { cpu: options.cpu } : {}),
        hostLockFile: options.hostLockFile ?? DEFAULT_HOST_LOCK_FILE,
        owner: runnerId,
        workRoot,
        onReport: (report) => heartbeat.setHostReport(report),
        log,
      })
    : null;

  let handingBack = false;
  const settings: JudgingSettings = {
    target,
    runnerId,
    sandbox: options.sandbox,
    dataDir: options.dataDir,
    workRoot,
    hostLockFile: options.hostLockFile ?? DEFAULT_HOST_LOCK_FILE,
    devMode,
    host,
    ...(options.cpu !== undefined ? { cpu: options.cpu } : {}),
    ...(options.publicBytes !== undefined ? { publicBytes: options.publicBytes } : {}),
    ...(options.maxPairs !== undefined ? { maxPairs: options.maxPairs } : {}),
    ...(options.deterministic !== undefined ? { deterministic: options.deterministic } : {}),
    ...(options.progressIntervalMs !== undefined
      ? { progressIntervalMs: options.progressIntervalMs }
      : {}),
    secret,
    redis: connection,
    prefix: options.prefix,
    crossCompiles: match.hostOs === 'linux' && (await canCrossCompile()),
    handingBack: () => handingBack,
    onJobStart: (job) => {
      const current: CurrentJob = {
        judgingId: job.judgingId,
        round: job.round,
        since: new Date().toISOString(),
      };
      heartbeat.setCurrentJob(current);
    },
    onJobEnd: () => heartbeat.setCurrentJob(null),
    log,
  };
  const judging: JudgingProcessor = createJudgingProcessor(settings);
  const finalSession = createFinalSessionProcessor(settings);
  // One queue per target carries both: judgings ('judge') and final sessions (FINAL_SESSION_JOB_NAME).
  const processor = (job: Job, token?: string, signal?: AbortSignal) =>
    isFinalSessionJob(job) ? finalSession(job, token, signal) : judging(job, token, signal);

  // 3. The worker: concurrency 1, and the host lock inside the processor covers other runners.
  const worker = new Worker(judgeQueueName(target), processor, {
    connection,
    prefix: options.prefix,
    name: runnerId,
    concurrency: 1,
    lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
    stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount: options.maxStalledCount ?? DEFAULT_MAX_STALLED_COUNT,
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: KEEP_FAILED,
  });
  worker.on('error', (error) => logRedis(`worker: ${error.message}`));
  worker.on('failed', (job, error) => {
    if (job) log(`job ${job.id}: failed (attempt ${job.attemptsMade}): ${error.message}`);
  });
  worker.on('stalled', (jobId) =>
    log(`job ${jobId}: its runner stopped renewing the lock; moved back to the queue`),
  );
  worker.on('lockRenewalFailed', (jobIds) => {
    for (const jobId of jobIds) {
      log(`job ${jobId}: lock lost (Redis flushed, or this runner stalled): abandoning it`);
      worker.cancelJob(jobId, CANCEL_LOCK_LOST);
    }
  });
  worker.on('ready', () =>
    log(
      `serving ${judgeQueueName(target)} (prefix ${options.prefix}) on ${host.hostname}, ` +
        `${host.cpuModel}`,
    ),
  );

  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const handBack = (reason: string) => {
    if (!handingBack) log(`handing the current job back: ${reason}`);
    handingBack = true;
    worker.cancelAllJobs(CANCEL_SHUTDOWN);
  };

  const shutdown = (reason: string): Promise<void> => {
    if (closing) return closing;
    // The whole stop fits in the grace period: the judging gets it minus the time handing its job
    // back may take (which needs Redis), then a forced close of a couple of seconds at most.
    const totalMs = (options.graceSeconds ?? DEFAULT_GRACE_SECONDS) * 1000;
    const handBackMs = Math.min(HAND_BACK_MS, totalMs / 2);
    const graceMs = totalMs - handBackMs;
    log(`${reason}: taking no new jobs; the current one has ${graceMs / 1000} s to finish`);
    closing = (async () => {
      const grace = setTimeout(() => handBack('the grace period is over'), graceMs);
      // close() stops fetching and waits for the active job; its lock keeps being renewed. A job
      // handed back needs Redis to move back to the queue: without Redis, stop anyway after a
      // little more (its lock then expires and another runner retakes it: nothing is lost).
      const closingWorker = worker.close().catch((error: Error) => {
        log(`closing the worker: ${error.message}`);
      });
      const closed = await settleWithin(
        closingWorker.then(() => true),
        totalMs,
      );
      clearTimeout(grace);
      if (!closed) {
        log(
          `the job could not be handed back within ${handBackMs / 1000} s (Redis unreachable?): ` +
            'stopping anyway; it returns to the queue when its lock expires',
        );
        await settleWithin(
          worker.close(true).catch(() => undefined),
          FORCED_CLOSE_MS,
        );
      }
      await settleWithin(hostProbe?.stop() ?? Promise.resolve(), 5_000);
      // Without Redis the heartbeat's key cannot be deleted: it expires by itself.
      const reachable = connection.status === 'ready';
      await settleWithin(heartbeat.stop(), reachable ? 5_000 : FORCED_CLOSE_MS);
      if (reachable) await settleWithin(connection.quit(), 5_000);
      connection.disconnect();
      log('stopped');
      resolveClosed();
    })();
    return closing;
  };

  return {
    runnerId,
    target,
    worker,
    shutdown,
    handBack,
    get stopping() {
      return closing !== null;
    },
    closed,
  };
}

/**
 * SIGTERM/SIGINT: the first stops the runner gracefully, a second hands the current job back at
 * once. Returns a function that removes the handlers.
 */
export function stopOnSignals(service: RunnerService): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (!service.stopping) void service.shutdown(`${signal} received`);
    else service.handBack(`${signal} received again`);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
