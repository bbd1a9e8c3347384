// The runner service: a BullMQ worker on one target's judge queue that runs the judge library,
// one judging at a time per host. It needs Redis only — never the database (docs/architecture.md).
//
// Locks: BullMQ renews each active job's lock every lockDuration/4 from this process's event loop;
// a runner that dies stops renewing, its lock expires and the next stalled check (stalledInterval,
// run by any live worker of the queue) moves the job back to wait, so another runner takes it
// about lockDuration + stalledInterval later (≈ 75 s with the defaults) — however long judgings
// last. maxStalledCount 2: a job whose runners die twice is still retried; a third time fails it.
import os from 'node:os';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  judgeQueueName,
  type HostFingerprint,
  type Target,
  type TargetId,
  AppError,
} from '../../contracts';
import { settleWithin } from '../../lib/core/async/timeout';
import {
  CHALLENGES_DIR,
  listChallenges,
  type Challenge,
} from '../../lib/core/challenge/load-manifest';
import { challengeSecret } from '../../lib/core/config/env';
import { createWorkerConnection } from '../../lib/server/queue/connection';
import { hostFingerprint } from '../host/fingerprint';
import { checkHostMemory } from '../host/memory';
import type { Sandbox } from '../sandbox/sandbox';
import { portabilityPreCheck } from './portability-check';
import { hostPlatform, type HostPlatform } from '../platform';
import {
  startHeartbeat,
  type CurrentJob,
  type Heartbeat,
} from '../../lib/server/queue/runner-heartbeat';
import { DEFAULT_HOST_LOCK_FILE } from './host-lock';
import { startHostProbe, type HostProbe } from './host-probe';
import {
  CANCEL_LOCK_LOST,
  CANCEL_SHUTDOWN,
  createJudgingProcessor,
  type JudgingProcessor,
  type JudgingSettings,
} from './judging-processor';
import { DEFAULT_WORK_ROOT, prepareWorkRoot } from './work-root';
import { createFinalSessionProcessor, isFinalSessionJob } from './final-session-processor';
import { DEFAULT_SESSION_SIZE } from '../judge/measure';

export const DEFAULT_GRACE_SECONDS = 600;
export const DEFAULT_LOCK_DURATION_MS = 60_000;
export const DEFAULT_STALLED_INTERVAL_MS = 15_000;
const DEFAULT_MAX_STALLED_COUNT = 2;
/** The end of the grace period kept for handing the job back (at most half of it). */
const HAND_BACK_MS = 10_000;
/** What a forced close may still take once Redis has not answered. */
const FORCED_CLOSE_MS = 2_000;
/** Fallback retention when the producer sets none: results are recorded by then. */
const KEEP_COMPLETED = { age: 7 * 24 * 3600 };
const KEEP_FAILED = { age: 30 * 24 * 3600 };

/** A runner that must not start: bad configuration or a host that does not match its target. */
export class RunnerConfigError extends AppError {
  override name = 'RunnerConfigError';
  readonly code = 'config' as const;
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

/** Every challenge on disk that has this target. */
async function challengesForTarget(target: TargetId): Promise<Challenge[]> {
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

/** The options resolved once, and what every step of the service shares. */
interface ServiceContext {
  options: RunnerServiceOptions;
  target: TargetId;
  runnerId: string;
  log: (line: string) => void;
  secret: (name: string) => string | undefined;
  workRoot: string;
  hostLockFile: string;
}

/** What the start-up checks established about this host and the target. */
interface HostReadiness {
  /** The first challenge with this target (the host probe measures with it). */
  first: Challenge;
  spec: Target;
  platform: HostPlatform;
  devMode: boolean;
  host: HostFingerprint;
  /** Most judgings held at once: the largest measure session of this target's challenges. */
  sessionSize: number;
}

/** Redis and what runs on it besides the worker. */
interface ServiceLinks {
  connection: Redis;
  logRedis: (line: string) => void;
  heartbeat: Heartbeat;
  hostProbe: HostProbe | null;
}

export async function startRunnerService(options: RunnerServiceOptions): Promise<RunnerService> {
  const context = resolveOptions(options);
  const ready = await checkHostAndPlatform(context);
  const links = connectRedis(context, ready);
  const handingBack = { value: false };
  // Holding several jobs, the worker may still be fetching one when a shutdown begins: a job that
  // arrives once the runner is stopping goes straight back to the queue, for another runner.
  let service: RunnerService | null = null;
  const settings = judgingSettings(
    context,
    ready,
    links,
    () => handingBack.value || (service?.stopping ?? false),
  );
  const worker = createWorker(context, ready, links, settings);
  service = wireShutdown(context, links, worker, handingBack);
  return service;
}

function resolveOptions(options: RunnerServiceOptions): ServiceContext {
  const runnerId = options.runnerId ?? defaultRunnerId(options.target);
  return {
    options,
    target: options.target,
    runnerId,
    log:
      options.log ??
      ((line: string) =>
        process.stderr.write(`${new Date().toISOString()} runner ${runnerId}: ${line}\n`)),
    secret: options.secret ?? challengeSecret,
    workRoot: options.workRoot ?? DEFAULT_WORK_ROOT,
    hostLockFile: options.hostLockFile ?? DEFAULT_HOST_LOCK_FILE,
  };
}

/** Refuses what would produce wrong or unlabelled results, before touching the queue. */
async function checkHostAndPlatform(context: ServiceContext): Promise<HostReadiness> {
  const { options, target, log } = context;
  const challenges = await challengesForTarget(target);
  const first = challenges[0];
  const spec = first?.manifest.targets[target];
  if (!first || !spec)
    throw new RunnerConfigError(`no challenge in ${CHALLENGES_DIR} has target ${target}`);
  const platform = await hostPlatform({
    targetId: target,
    target: spec,
    sandbox: options.sandbox,
    dataDir: options.dataDir,
    emulate: options.emulate,
    log,
  });
  // An emulated target (runner/platform) is never the target's hardware: always
  // development mode, and labelled so in every result.
  const devMode = (options.devMode ?? false) || platform.emulation !== null;
  refuseDevelopmentKnobs(options, devMode);
  await checkHostConditions(challenges, {
    devMode,
    log,
    // Truthy, not just defined: an empty --host-root is the default root, not ''.
    ...(options.hostRoot ? { root: options.hostRoot } : {}),
  });
  refuseHostMismatch(target, spec, platform, devMode);
  warnMissingSeeds(challenges, context.secret, devMode, log);
  await checkSandbox(options.sandbox);
  await warmUpEmulation(platform);
  await checkWorkRoot(context.workRoot);
  const host: HostFingerprint = await hostFingerprint({
    cxx: spec.toolchain.cxx,
    sandbox: platform.emulation?.sandboxLabel ?? options.sandbox.kind,
    cpu: options.cpu,
    devMode,
    emulated: platform.emulation !== null,
  });
  const mode = hostModeLine(target, spec, platform, devMode);
  if (mode) log(mode);
  const sessionSize = Math.max(
    ...challenges.map((c) => c.manifest.runPolicy.sessionSize ?? DEFAULT_SESSION_SIZE),
  );
  return { first, spec, platform, devMode, host, sessionSize };
}

/** The development knobs change what is measured: refused outside development mode. */
export function refuseDevelopmentKnobs(
  options: Pick<RunnerServiceOptions, 'publicBytes' | 'maxPairs' | 'deterministic'>,
  devMode: boolean,
): void {
  const knobs = [
    options.publicBytes !== undefined && '--public-size',
    options.maxPairs !== undefined && '--runs',
    options.deterministic === false && '--no-deterministic',
  ].filter(Boolean);
  if (knobs.length && !devMode)
    throw new RunnerConfigError(
      `${knobs.join(', ')} change what is measured: only allowed with --dev-mode, whose results are labelled`,
    );
}

export function refuseHostMismatch(
  target: TargetId,
  spec: Target,
  match: Pick<HostPlatform, 'matches' | 'hostOs' | 'hostVendor'>,
  devMode: boolean,
): void {
  if (!match.matches && !devMode)
    throw new RunnerConfigError(
      `this host (${match.hostOs}, ${match.hostVendor}) does not match target ${target} ` +
        `(${spec.os}, ${spec.cpuVendor}): refusing to judge for it. Start with --dev-mode to run ` +
        'anyway for development; every result is then labelled development mode.',
    );
}

/**
 * The seed normally travels in the job (the platform's); this runner's variable is only the
 * fallback for a platform that knows none, and a job with no seed at all is refused then.
 */
function warnMissingSeeds(
  challenges: Challenge[],
  secret: (name: string) => string | undefined,
  devMode: boolean,
  log: (line: string) => void,
): void {
  const missing = challenges
    .map((c) => c.manifest.inputs.benchmark.seedEnv)
    .filter((name) => secret(name) === undefined);
  if (missing.length && !devMode)
    log(
      `${[...new Set(missing)].join(', ')} not set here: judging only jobs that carry their ` +
        'benchmark seed (set by the platform from the console or its own variable)',
    );
}

async function checkSandbox(sandbox: Sandbox): Promise<void> {
  try {
    await sandbox.check();
  } catch (error) {
    throw new RunnerConfigError(
      `the ${sandbox.kind} sandbox does not work here: ${(error as Error).message}`,
    );
  }
}

/** The emulator's one-off set-up now, so that a broken Wine stops the runner at start. */
async function warmUpEmulation(platform: HostPlatform): Promise<void> {
  if (!platform.emulation) return;
  try {
    await platform.emulation.warmUp();
  } catch (error) {
    throw new RunnerConfigError(`Wine does not work here: ${(error as Error).message}`);
  }
}

async function checkWorkRoot(workRoot: string): Promise<void> {
  const unreachable = await prepareWorkRoot(workRoot);
  if (unreachable)
    throw new RunnerConfigError(
      `work root ${workRoot}: ${unreachable}, so the sandbox could not reach the judgings' folders`,
    );
}

/** What the runner says at start about labelled results (null: a matching host, nothing to say). */
export function hostModeLine(
  target: TargetId,
  spec: Target,
  platform: Pick<HostPlatform, 'matches' | 'hostOs' | 'hostVendor' | 'emulation'>,
  devMode: boolean,
): string | null {
  if (platform.emulation)
    return (
      `emulated: ${target} (${spec.os}, ${spec.cpuVendor}) under ${platform.emulation.by} on this ` +
      'Linux host; development mode, every result is labelled emulated'
    );
  if (!devMode) return null;
  return platform.matches
    ? `development mode (the host matches ${target}, but results are labelled anyway)`
    : `development mode: this host (${platform.hostOs}, ${platform.hostVendor}) is not ${target} ` +
        `(${spec.os}, ${spec.cpuVendor}); every result is labelled`;
}

/**
 * One Redis connection for the worker's commands and the heartbeat (BullMQ adds its own blocking
 * connection), waiting out outages rather than failing; the heartbeat and the host probe start.
 */
function connectRedis(context: ServiceContext, ready: HostReadiness): ServiceLinks {
  const { options, runnerId } = context;
  const logRedis = throttled(context.log);
  const connection: Redis = createWorkerConnection({
    url: options.redisUrl,
    connectionName: `perfjudge-runner-${runnerId}`,
    onError: (error) => logRedis(`redis: ${error.message}`),
  });
  const heartbeat = startRunnerHeartbeat(context, ready, connection, logRedis);
  return {
    connection,
    logRedis,
    heartbeat,
    hostProbe: startRunnerHostProbe(context, ready, heartbeat),
  };
}

function startRunnerHeartbeat(
  context: ServiceContext,
  ready: HostReadiness,
  redis: Redis,
  logRedis: (line: string) => void,
): Heartbeat {
  const { options } = context;
  const { host } = ready;
  return startHeartbeat({
    redis,
    prefix: options.prefix,
    runner: {
      runnerId: context.runnerId,
      target: context.target,
      hostname: host.hostname,
      cpuModel: host.cpuModel,
      cpuVendor: host.cpuVendor,
      devMode: ready.devMode,
      emulated: host.emulated,
      startedAt: new Date().toISOString(),
      // The console says "measuring…" until a report comes: it must know when none will.
      hostReportOff: !options.hostReport,
    },
    // Truthy, not just defined: 0 means the default interval, not a heartbeat without pause.
    ...(options.heartbeatIntervalMs ? { intervalMs: options.heartbeatIntervalMs } : {}),
    onError: (error) => logRedis(`heartbeat: ${error.message}`),
  });
}

/** The host's noise and timing conditions, measured once in the background (--host-report). */
function startRunnerHostProbe(
  context: ServiceContext,
  ready: HostReadiness,
  heartbeat: Heartbeat,
): HostProbe | null {
  const { options } = context;
  if (!options.hostReport) return null;
  return startHostProbe({
    challenge: ready.first,
    sandbox: options.sandbox,
    dataDir: options.dataDir,
    cpu: options.cpu,
    hostLockFile: context.hostLockFile,
    owner: context.runnerId,
    workRoot: context.workRoot,
    onReport: (report) => heartbeat.setHostReport(report),
    log: context.log,
  });
}

/** What the judging and final-session processors are given. */
function judgingSettings(
  context: ServiceContext,
  ready: HostReadiness,
  links: ServiceLinks,
  handingBack: () => boolean,
): JudgingSettings {
  const { options, runnerId } = context;
  const { heartbeat } = links;
  const portability = ready.platform.portability;
  const inHand = new Map<string, CurrentJob>();
  return {
    target: context.target,
    runnerId,
    sandbox: options.sandbox,
    dataDir: options.dataDir,
    workRoot: context.workRoot,
    hostLockFile: context.hostLockFile,
    devMode: ready.devMode,
    host: ready.host,
    cpu: options.cpu,
    publicBytes: options.publicBytes,
    maxPairs: options.maxPairs,
    deterministic: options.deterministic,
    progressIntervalMs: options.progressIntervalMs,
    secret: context.secret,
    redis: links.connection,
    prefix: options.prefix,
    ...(portability
      ? {
          preCheck: portabilityPreCheck(portability, {
            redis: links.connection,
            prefix: options.prefix,
            sandbox: options.sandbox,
            workRoot: context.workRoot,
            dataDir: options.dataDir,
            runnerId,
            host: ready.host,
          }),
        }
      : {}),
    handingBack,
    // The heartbeat names the oldest job in hand (the runner holds a session's worth at once).
    onJobStart: (job, queueJobId) => {
      inHand.set(queueJobId, {
        judgingId: job.judgingId,
        round: job.round,
        since: new Date().toISOString(),
      });
      heartbeat.setCurrentJob([...inHand.values()][0] ?? null);
    },
    onJobEnd: (queueJobId) => {
      inHand.delete(queueJobId);
      heartbeat.setCurrentJob([...inHand.values()][0] ?? null);
    },
    log: context.log,
  };
}

/**
 * BullMQ refuses to finish a job with a lock that is no longer the attempt's ("Lock mismatch",
 * "Missing lock"): an attempt that lost its job (Redis lost it and it was queued again, or this
 * runner stalled past its lock) ended after it had been abandoned. Nothing is lost: the job's
 * current attempt answers it. Said in words, for the operator; null for any other error.
 */
export function abandonedAttempt(error: Error): string | null {
  const match = /^(?:Lock mismatch|Missing lock) for job (\S+?)\.? /.exec(error.message);
  if (!match) return null;
  return (
    `job ${match[1]}: an abandoned attempt ended (its lock was no longer its own: Redis lost ` +
    'the job and it was queued again, or the runner stalled); its outcome was not kept, the ' +
    `job's current attempt answers it (BullMQ: ${error.message})`
  );
}

/** One queue per target carries both: judgings ('judge') and final sessions (by job name). */
function dispatchByJobName(settings: JudgingSettings) {
  const judging: JudgingProcessor = createJudgingProcessor(settings);
  const finalSession = createFinalSessionProcessor(settings);
  // Three declared parameters: BullMQ only hands a processor an AbortSignal when it takes one.
  return (job: Job, token?: string, signal?: AbortSignal) =>
    isFinalSessionJob(job) ? finalSession(job, token, signal) : judging(job, token, signal);
}

/**
 * The worker holds up to a session's worth of judgings at once: they take turns on the host and
 * share the baseline's runs (host-scheduler.ts); the host lock covers other runners.
 */
function createWorker(
  context: ServiceContext,
  ready: HostReadiness,
  links: ServiceLinks,
  settings: JudgingSettings,
): Worker {
  const { options, log, target } = context;
  const worker = new Worker(judgeQueueName(target), dispatchByJobName(settings), {
    connection: links.connection,
    prefix: options.prefix,
    name: context.runnerId,
    concurrency: ready.sessionSize,
    lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
    stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount: options.maxStalledCount ?? DEFAULT_MAX_STALLED_COUNT,
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: KEEP_FAILED,
  });
  worker.on('error', (error) => {
    const abandoned = abandonedAttempt(error);
    if (abandoned) log(abandoned);
    else links.logRedis(`worker: ${error.message}`);
  });
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
      `serving ${judgeQueueName(target)} (prefix ${options.prefix}) on ${ready.host.hostname}, ` +
        `${ready.host.cpuModel}`,
    ),
  );
  return worker;
}

/** The service's handle: a graceful shutdown within the grace period, and an immediate hand-back. */
function wireShutdown(
  context: ServiceContext,
  links: ServiceLinks,
  worker: Worker,
  handingBack: { value: boolean },
): RunnerService {
  const { log } = context;
  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const handBack = (reason: string) => {
    if (!handingBack.value) log(`handing the current job back: ${reason}`);
    handingBack.value = true;
    worker.cancelAllJobs(CANCEL_SHUTDOWN);
  };
  const shutdown = (reason: string): Promise<void> => {
    closing ??= stopService(context, links, worker, handBack, reason).then(resolveClosed);
    return closing;
  };
  return {
    runnerId: context.runnerId,
    target: context.target,
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
 * The whole stop fits in the grace period: the judging gets it minus the time handing its job
 * back may take (which needs Redis), then a forced close of a couple of seconds at most.
 */
export function shutdownBudget(graceSeconds: number): {
  totalMs: number;
  handBackMs: number;
  graceMs: number;
} {
  const totalMs = graceSeconds * 1000;
  const handBackMs = Math.min(HAND_BACK_MS, totalMs / 2);
  return { totalMs, handBackMs, graceMs: totalMs - handBackMs };
}

async function stopService(
  context: ServiceContext,
  links: ServiceLinks,
  worker: Worker,
  handBack: (reason: string) => void,
  reason: string,
): Promise<void> {
  const { log } = context;
  const { totalMs, handBackMs, graceMs } = shutdownBudget(
    context.options.graceSeconds ?? DEFAULT_GRACE_SECONDS,
  );
  log(`${reason}: taking no new jobs; the current one has ${graceMs / 1000} s to finish`);
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
  await closeLinks(links);
  log('stopped');
}

async function closeLinks({ connection, heartbeat, hostProbe }: ServiceLinks): Promise<void> {
  await settleWithin(hostProbe?.stop() ?? Promise.resolve(), 5_000);
  // Without Redis the heartbeat's key cannot be deleted: it expires by itself.
  const reachable = connection.status === 'ready';
  await settleWithin(heartbeat.stop(), reachable ? 5_000 : FORCED_CLOSE_MS);
  if (reachable) await settleWithin(connection.quit(), 5_000);
  connection.disconnect();
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
