// The BullMQ processor of a judge queue: validates the payload, takes the host lock, runs the judge
// library and answers with the typed result. Only platform faults (JUDGE_ERROR) are retried.
//
// What the producer sets on each judging job (job options, not here):
//   jobId: judgingJobId(judgingId, round)    — a repeated enqueue of the same round does nothing
//   attempts: 3, backoff: { type: 'exponential', delay: 30_000 }
//                                            — JUDGE_ERROR is retried after 30 s, then 60 s; the
//                                              last attempt's JUDGE_ERROR is returned as a result
//   removeOnComplete / removeOnFail: { age } — bounded retention (the worker has a fallback)
// A contestant's fault (REJECTED, BUILD_ERROR, WRONG_ANSWER, …) completes the job on the first
// attempt; a malformed payload fails it at once (UnrecoverableError, no retries).
import { DelayedError, UnrecoverableError, WaitingError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  AppError,
  newJudgingResult,
  judgingCancelKey,
  judgingJobId,
  repeatJobId,
  judgingJobResultSchema,
  issuesInline,
  judgingJobSchema,
  type HostFingerprint,
  type JudgingJob,
  type JudgingJobResult,
  type JudgingResult,
  type TargetId,
} from '../../contracts';
import { describeTimedInput } from '../../lib/core/challenge/benchmark-definition';
import { resolveJudgeInputs, type JudgeInputs } from '../../lib/core/challenge/judge-inputs';
import { loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';
import { hostMemoryBandwidth } from '../host/memory-bandwidth';
import { judge } from '../judge/judge';
import type { JudgingPreCheck } from './portability-check';
import type { Sandbox } from '../sandbox/sandbox';
import { acquireHostLock, type HostLock } from './host-lock';
import { createHostScheduler, type HostScheduler } from './host-scheduler';
import { createJobPublisher } from './job-publisher';
import {
  copyNote,
  judgingsInHand,
  withCopiesSignal,
  type HeldJudging,
  type JudgingsInHand,
} from './judgings-in-hand';
import { resultOutbox } from './result-outbox';
import { pausedWhileWaiting, stallLimitMs, startStallWatchdog } from './stall-watchdog';
import { sweepStaleScratch } from './work-root';

/** Abort reasons the runner gives BullMQ's per-job AbortSignal (`worker.cancelJob`). */
export const CANCEL_SHUTDOWN = 'perfjudge: runner shutting down';
export const CANCEL_LOCK_LOST = 'perfjudge: job lock lost';
/** The scorer cancelled the judging: it can no longer count (the submission failed elsewhere). */
export const CANCEL_NOT_COUNTING = 'perfjudge: judging cancelled by the scorer';
/** How often a runner looks for the scorer's cancel flag while it waits or judges. */
const CANCEL_CHECK_MS = 1_000;
/** How long a copy of a judging that ended here without an answer waits before it is taken again. */
const PUT_OFF_MS = 2_000;

export interface JudgingSettings {
  target: TargetId;
  runnerId: string;
  sandbox: Sandbox;
  /** Caches (baseline builds, inputs, expected outputs); never visible to the sandbox. */
  dataDir: string;
  /** Parent of each judging's scratch folder. */
  workRoot: string;
  hostLockFile: string;
  /** The host does not match the target: every result is labelled. */
  devMode: boolean;
  /** Host facts for results the judge never got to produce (a platform fault before it ran). */
  host: HostFingerprint;
  cpu?: number;
  /**
   * Development and test knobs: a smaller public input, fewer pairs, no cachegrind. (Never the
   * benchmark input: that is the job's.)
   */
  publicBytes?: number;
  maxPairs?: number;
  deterministic?: boolean;
  progressIntervalMs?: number;
  /** A challenge secret by variable name (the benchmark seed); undefined when unset. */
  secret: (name: string) => string | undefined;
  /** True once the runner is stopping: a job fetched now is handed back at once. */
  handingBack: () => boolean;
  /** Redis and the key prefix, for the cancel flags; without them there are none. */
  redis?: Redis;
  prefix?: string;
  /**
   * The platform's step before the build (the portability pre-check of this host's role,
   * runner/service/portability-check.ts): a result settles the judging; without it there is none.
   */
  preCheck?: JudgingPreCheck;
  /** The job in hand, for the heartbeat (a final session names its job id and part). */
  onJobStart?: (job: Pick<JudgingJob, 'judgingId' | 'round'>, queueJobId: string) => void;
  /** The job whose start was reported ends (a runner holds several at once). */
  onJobEnd?: (queueJobId: string) => void;
  log: (line: string) => void;
  /**
   * How the judgings this process holds at once share the host (the runner's, made for its
   * worker); absent: the processor makes its own.
   */
  scheduler?: HostScheduler;
}

/** This runner cannot judge the job (its challenge, its platform, a wedged host): ours, retried. */
export class PlatformError extends AppError {
  override name = 'PlatformError';
  readonly code = 'unavailable' as const;
}

/** The job's challenge, exactly the version it was submitted for. */
export async function loadJobChallenge(
  job: Pick<JudgingJob, 'challenge'>,
): Promise<{ challenge: Challenge; manifestVersion: number }> {
  let challenge: Challenge;
  try {
    challenge = await loadChallenge(job.challenge.slug);
  } catch (error) {
    throw new PlatformError(
      `this runner cannot load challenge ${job.challenge.slug}: ${(error as Error).message}`,
    );
  }
  const { manifest } = challenge;
  if (manifest.version !== job.challenge.version)
    throw new PlatformError(
      `this runner has ${manifest.slug} v${manifest.version}, the job needs v${job.challenge.version}`,
    );
  return { challenge, manifestVersion: manifest.version };
}

/**
 * Why this job's profile leaves out cachegrind, in the words its result shows where cachegrind's
 * tables would be; undefined: as the manifest says.
 */
export function cachegrindOff(
  job: Pick<JudgingJob, 'settings'>,
  settings: Pick<JudgingSettings, 'deterministic'>,
): string | undefined {
  if (job.settings?.cachegrind === false)
    return "cachegrind was not run: this contest's settings leave it out of every judging";
  if (settings.deterministic === false)
    return 'cachegrind was not run: this runner was started with --no-deterministic (development)';
  return undefined;
}

/**
 * A result the runner writes itself for this job on this host, from `started` to now: a JUDGE_ERROR
 * for a fault outside the judge (it never ran, or threw), or the base a pre-check's verdict fills.
 */
export function jobResult(
  job: Pick<JudgingJob, 'judgingId' | 'challenge' | 'target'>,
  host: HostFingerprint,
  started: Date,
  told: { message: string; warnings?: string[] },
): JudgingResult {
  return newJudgingResult({
    judgingId: job.judgingId,
    challenge: job.challenge,
    target: job.target,
    host,
    startedAt: started,
    finishedAt: new Date(),
    ...told,
  });
}

export type JudgingProcessor = (
  job: Job,
  token?: string,
  signal?: AbortSignal,
) => Promise<JudgingJobResult>;

export function createJudgingProcessor(settings: JudgingSettings): JudgingProcessor {
  const withScheduler: JudgingSettings & { scheduler: HostScheduler } = {
    ...settings,
    scheduler: settings.scheduler ?? runnerHostScheduler(settings),
  };
  const inHand = judgingsInHand<JudgingJobResult>();
  // Three declared parameters: BullMQ only hands a processor an AbortSignal when it takes one.
  return (job, token, signal) => processJudgingJob(withScheduler, inHand, job, token, signal);
}

/** The host scheduler of a runner: its hold on the host lock is taken as takeHostLock takes it. */
function runnerHostScheduler(
  settings: Pick<JudgingSettings, 'hostLockFile' | 'runnerId' | 'workRoot' | 'log'>,
): HostScheduler {
  return createHostScheduler((onWaiting) =>
    takeHostLock(settings, (line) => settings.log(line), onWaiting, undefined),
  );
}

/** A job in hand and what its steps share. */
export interface JobContext<Data> {
  job: Job;
  token: string | undefined;
  data: Data;
  settings: JudgingSettings;
  attempt: number;
  attempts: number;
  /** Logs a line here and in the job's own log. */
  note: (line: string) => void;
}

async function processJudgingJob(
  settings: JudgingSettings,
  inHand: JudgingsInHand<JudgingJobResult>,
  job: Job,
  token: string | undefined,
  signal: AbortSignal | undefined,
): Promise<JudgingJobResult> {
  const data = parseJudgingJob(job, settings);
  if (settings.handingBack())
    return handBackJob(job, token, settings, 'the runner is shutting down');
  // Finished work is never re-done: Redis lost this runner's answer before the scorer recorded it.
  const outbox = resultOutbox(settings.dataDir, {
    prefix: settings.prefix ?? '-',
    target: settings.target,
  });
  // Taken in the same tick as the lookup: two copies arriving at once cannot both judge.
  const taken = inHand.take(judgingKey(data));
  if (taken.held)
    return answerAfterJudgingInHand(
      taken,
      { job, token, signal, settings },
      {
        find: async (released) => released ?? (await outbox.find(data)) ?? undefined,
        describe: (kept) => kept.result.verdict,
      },
    );
  let answer: JudgingJobResult | undefined;
  try {
    const kept = await outbox.find(data);
    if (kept) {
      settings.log(
        `job ${job.id}: ${kept.result.verdict}, answered again from the outbox, not re-judged`,
      );
      return kept;
    }
    const lock = jobLock(job, token, taken, settings);
    answer = await judgeJob(settings, job, withCopiesSignal(signal, taken), data, {
      token,
      lock,
    });
    await outbox
      .keep(data, answer)
      .catch((error: Error) =>
        settings.log(`job ${job.id}: the outbox could not keep the answer: ${error.message}`),
      );
    return answer;
  } finally {
    taken.release(answer);
  }
}

/** What identifies a judging whatever its queue job is called: its id and round (or its repeat). */
function judgingKey(data: JudgingJob): string {
  return data.repeat ? repeatJobId(data.repeat.repeatId) : judgingJobId(data.judgingId, data.round);
}

/** One attempt at the judging: progress, the cancel flag, the judge, and the job's outcome. */
async function judgeJob(
  settings: JudgingSettings,
  job: Job,
  signal: AbortSignal,
  data: JudgingJob,
  { token, lock }: { token: string | undefined; lock: JobLock | null },
): Promise<JudgingJobResult> {
  const started = new Date();
  // The scorer's cancel flag aborts the judging like a shutdown would, but the job then ends.
  // A repeat ("rejudge N times") is the organizer's own request: the submission's flag (raised when
  // it failed on another target) does not stop it.
  const cancel = watchCancelFlag(
    settings.prefix === undefined || data.repeat
      ? null
      : judgingCancelKey(settings.prefix, data.judgingId, data.round),
    settings,
    signal,
    lock,
  );
  const writeFailed = writeFailures(job, settings.log);
  const publisher = createJobPublisher(
    whileOurs(job, cancel.signal),
    { judgingId: data.judgingId, round: data.round },
    (error) => writeFailed('progress', error),
    settings.progressIntervalMs,
  );
  const context = jobContext(job, token, data, settings, publisher);
  context.note(`attempt ${context.attempt} of ${context.attempts} on ${settings.host.hostname}`);
  settings.onJobStart?.(data, job.id ?? '');
  await refuseIfCancelledBefore(cancel, context, publisher, 'not judged');
  const result = await runJudging(context, publisher, cancel, started);
  return judgingOutcome(context, cancel, result, started);
}

/**
 * A copy of a judging (or final session) this process holds (judgings-in-hand.ts): it waits for
 * that one, then gives its answer. One that ended without an answer (cancelled, JUDGE_ERROR) took
 * BullMQ's renewal of this job's lock with it: the copy is put off a moment, to be taken again with
 * a lock of its own.
 */
export async function answerAfterJudgingInHand<Answer>(
  held: HeldJudging<Answer>,
  attempt: {
    job: Job;
    token: string | undefined;
    signal: AbortSignal | undefined;
    settings: Pick<JudgingSettings, 'log'>;
  },
  answers: {
    /** The answer of the one in hand: the one it was released with, or where it keeps it. */
    find: (released: Answer | undefined) => Promise<Answer | undefined>;
    describe: (answer: Answer) => string;
  },
): Promise<Answer> {
  const { job, token, signal, settings } = attempt;
  settings.log(copyNote(job));
  const kept = await answers.find(await held.ended(signal));
  if (kept !== undefined) {
    settings.log(
      `job ${job.id}: ${answers.describe(kept)}, the answer of the attempt that was in hand ` +
        '(its own job, lost, refused it: a lock mismatch)',
    );
    return kept;
  }
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    if (reason === CANCEL_LOCK_LOST)
      throw new Error('the job lock was lost while its judging was in hand; abandoned');
    return handBackJob(job, token, settings, typeof reason === 'string' ? reason : 'cancelled');
  }
  settings.log(
    `job ${job.id}: the judging in hand gave no answer; taken again in ${PUT_OFF_MS} ms`,
  );
  await job.moveToDelayed(Date.now() + PUT_OFF_MS, token);
  throw new DelayedError();
}

/**
 * How an attempt reports a failed write on its job. Once Redis has lost the job ("Missing key")
 * every write fails until the reconciler queues it again: said once, not several times a second.
 */
export function writeFailures(
  job: Pick<Job, 'id'>,
  log: (line: string) => void,
): (what: string, error: Error) => void {
  let saidGone = false;
  return (what, error) => {
    const gone = error.message.startsWith('Missing key for job');
    if (gone && saidGone) return;
    saidGone ||= gone;
    log(
      gone
        ? `job ${job.id}: Redis no longer has this job (lost; the scorer's reconciler queues it ` +
            `again): its ${what} and what follows is not written until then`
        : `job ${job.id}: could not write the ${what}: ${error.message}`,
    );
  };
}

/** What an attempt writes on its job: progress, log lines, a final session's checkpoint. */
export type JobWrites = Pick<Job, 'updateProgress' | 'log' | 'updateData'>;

/**
 * The job's writes while this attempt holds its lock. One that lost it (Redis lost the job and it
 * was queued again under the same id, another runner's now) would write into that attempt's
 * progress, log and checkpoint until it ends: from the moment it knows, it writes nothing. (A copy
 * waiting here for this attempt keeps its writes: they are the copy's answer in the making.)
 */
export function whileOurs(job: Job, attempt: AbortSignal): JobWrites {
  const ours = () => !(attempt.aborted && attempt.reason === CANCEL_LOCK_LOST);
  return {
    updateProgress: async (progress) => (ours() ? job.updateProgress(progress) : undefined),
    log: async (line) => (ours() ? job.log(line) : 0),
    updateData: async (data) => (ours() ? job.updateData(data) : undefined),
  };
}

/** The payload, or an UnrecoverableError: a malformed job or one for another target never runs. */
export function parseJudgingJob(job: Job, settings: JudgingSettings): JudgingJob {
  const { log } = settings;
  const parsed = judgingJobSchema.safeParse(job.data);
  if (!parsed.success) {
    log(`job ${job.id}: invalid payload, failed without retries`);
    throw new UnrecoverableError(`invalid judging job payload: ${issuesInline(parsed.error, 5)}`);
  }
  const data = parsed.data;
  if (data.target !== settings.target) {
    log(`job ${job.id}: meant for target ${data.target}, failed without retries`);
    throw new UnrecoverableError(
      `a job for target ${data.target} on the queue of target ${settings.target}`,
    );
  }
  const expectedId = data.repeat
    ? repeatJobId(data.repeat.repeatId)
    : judgingJobId(data.judgingId, data.round);
  if (job.id !== expectedId) log(`job ${job.id}: its id is not ${expectedId}`);
  return data;
}

/** Moves the job back to wait (another runner, or this one later, takes it). */
export async function handBackJob(
  job: Job,
  token: string | undefined,
  settings: Pick<JudgingSettings, 'log'>,
  why: string,
): Promise<never> {
  // Logged once it is true: a hand-back that Redis did not confirm leaves the job to its lock.
  await job.moveToWait(token);
  settings.log(`job ${job.id}: handed back to the queue (${why})`);
  throw new WaitingError();
}

/** The attempt numbers and the note function of a job in hand. */
export function jobContext<Data>(
  job: Job,
  token: string | undefined,
  data: Data,
  settings: JudgingSettings,
  publisher: { log(line: string): void },
): JobContext<Data> {
  return {
    job,
    token,
    data,
    settings,
    attempts: Math.max(1, job.opts.attempts ?? 1),
    attempt: job.attemptsMade + 1,
    note: (line) => {
      settings.log(`job ${job.id}: ${line}`);
      publisher.log(`[runner ${settings.runnerId}] ${line}`);
    },
  };
}

/** A job cancelled before it started ends at once, without retries. */
export async function refuseIfCancelledBefore(
  cancel: CancelWatch,
  context: Pick<JobContext<unknown>, 'note' | 'settings' | 'job'>,
  publisher: { flush(): Promise<void> },
  what: string,
): Promise<void> {
  const cancelledBefore = await cancel.check();
  if (cancelledBefore === null) return;
  cancel.stop();
  context.note(`${what}: ${cancelledBefore}`);
  context.settings.onJobEnd?.(context.job.id ?? '');
  await publisher.flush();
  throw new UnrecoverableError(cancelledBefore);
}

/** The judging under the host lock; a fault outside the judge becomes a JUDGE_ERROR result. */
async function runJudging(
  context: JobContext<JudgingJob>,
  publisher: ReturnType<typeof createJobPublisher>,
  cancel: CancelWatch,
  started: Date,
): Promise<JudgingResult> {
  const { data, settings, note } = context;
  const judging = cancel.signal;
  try {
    return await judgeUnderHostLock(data, settings, publisher, note, judging);
  } catch (error) {
    if (judging.aborted) return jobResult(data, settings.host, started, { message: 'cancelled' });
    const message =
      error instanceof PlatformError
        ? error.message
        : `the runner failed: ${(error as Error).message ?? String(error)}`;
    note(message);
    return jobResult(data, settings.host, started, { message });
  } finally {
    cancel.stop();
    await publisher.flush();
    settings.onJobEnd?.(context.job.id ?? '');
  }
}

/**
 * What becomes of the job: a cancelled judging ends (the scorer's cancel), is abandoned (lock
 * lost) or handed back; a JUDGE_ERROR is retried until the last attempt; anything else is the
 * job's result.
 */
export async function judgingOutcome(
  context: JobContext<JudgingJob>,
  cancel: CancelWatch,
  result: JudgingResult,
  started: Date,
): Promise<JudgingJobResult> {
  const { job, data, settings, attempt, attempts } = context;
  const { log } = settings;
  const judging = cancel.signal;
  if (
    judging.aborted &&
    judging.reason === CANCEL_NOT_COUNTING &&
    result.verdict === 'JUDGE_ERROR'
  ) {
    const why = cancel.message() ?? 'cancelled by the scorer';
    log(`job ${job.id}: stopped, ${why}`);
    // Final: retrying a judging that cannot count would only waste the host again.
    throw new UnrecoverableError(why);
  }
  // A verdict reached before the cancellation arrived still stands; a cancelled judging does not.
  if (judging.aborted && result.verdict === 'JUDGE_ERROR') {
    const reason: unknown = judging.reason;
    if (reason === CANCEL_LOCK_LOST)
      // Another runner may be judging it now; whatever we wrote would be refused anyway.
      throw new Error('the job lock was lost mid-judging; this judging was abandoned');
    return handBackJob(
      job,
      context.token,
      settings,
      typeof reason === 'string' ? reason : 'cancelled',
    );
  }
  const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(1);
  if (result.verdict === 'JUDGE_ERROR' && attempt < attempts) {
    log(`job ${job.id}: JUDGE_ERROR in ${seconds} s, to be retried: ${result.message}`);
    // A plain Error: BullMQ retries it with the backoff the producer chose.
    throw new Error(`JUDGE_ERROR (attempt ${attempt} of ${attempts}): ${result.message}`);
  }
  log(`job ${job.id}: ${result.verdict} in ${seconds} s`);
  return judgingJobResultSchema.parse({
    judgingId: data.judgingId,
    round: data.round,
    runnerId: settings.runnerId,
    result,
  });
}

export interface CancelWatch {
  /** Aborts with CANCEL_NOT_COUNTING once the flag is seen, or with the job's own reason. */
  signal: AbortSignal;
  /** The flag's message now, or null (also when Redis cannot be asked: judging goes on). */
  check(): Promise<string | null>;
  message(): string | null;
  stop(): void;
}

/** A judging's BullMQ lock, as Redis holds it while the job is this attempt's. */
interface JobLock {
  /** BullMQ's key for it: `<prefix>:<queue>:<job id>:lock`, holding the taker's token. */
  key: string;
  token: string;
  /** A copy of this judging waits in this process (judgings-in-hand.ts): the lock is its now. */
  copyWaits: () => boolean;
  onLost: (holder: string) => void;
}

/** The job's lock, or null for a job taken without a token (tests calling a processor directly). */
export function jobLock(
  job: Job,
  token: string | undefined,
  taken: { copyWaits: () => boolean },
  settings: Pick<JudgingSettings, 'log'>,
): JobLock | null {
  if (!token) return null;
  return {
    key: `${job.queueQualifiedName}:${job.id}:lock`,
    token,
    copyWaits: taken.copyWaits,
    onLost: (holder) =>
      settings.log(
        `job ${job.id}: another runner holds its lock now (${holder.slice(0, 12)}…): ` +
          'Redis lost the job and it was queued again; abandoning this attempt',
      ),
  };
}

/**
 * Another runner took this judging (Redis lost the job; the reconciler queued it again): it is
 * judged there now. BullMQ would notice only at its next lock renewal (up to half the lock's
 * duration); this notices within two looks. A missing lock is left to BullMQ's renewal: the copy
 * may still come to this runner, which then answers it with this judging's result. Seen twice,
 * so a copy this process is just taking is never mistaken for another runner's.
 */
function lockWatch(lock: JobLock | null, redis: Redis | undefined): () => Promise<boolean> {
  let foreign = 0;
  return async () => {
    if (!lock || !redis || redis.status !== 'ready') return false;
    const holder = await redis.get(lock.key).catch(() => null);
    foreign = holder !== null && holder !== lock.token && !lock.copyWaits() ? foreign + 1 : 0;
    if (foreign < 2) return false;
    lock.onLost(holder as string);
    return true;
  };
}

/**
 * Polls a job's cancel flag (a judging's, set by the scorer; a final session's, set when the
 * organizer cancels the evaluation) in Redis while the job is in hand; with its lock, whether
 * another runner took the job meanwhile.
 */
export function watchCancelFlag(
  key: string | null,
  settings: Pick<JudgingSettings, 'redis'>,
  jobSignal: AbortSignal | undefined,
  lock: JobLock | null = null,
): CancelWatch {
  const controller = new AbortController();
  const onJobAbort = () => controller.abort(jobSignal?.reason);
  if (jobSignal?.aborted) onJobAbort();
  else jobSignal?.addEventListener('abort', onJobAbort, { once: true });
  const { redis } = settings;
  let seen: string | null = null;
  const check = async (): Promise<string | null> => {
    if (!redis || key === null || redis.status !== 'ready') return null;
    const value = await redis.get(key).catch(() => null);
    if (value !== null) seen = value || 'cancelled by the scorer';
    return seen;
  };
  const lockLost = lockWatch(lock, redis);
  const timer = setInterval(() => {
    void check().then((message) => {
      if (message !== null && !controller.signal.aborted) controller.abort(CANCEL_NOT_COUNTING);
    });
    void lockLost().then((lost) => {
      if (lost && !controller.signal.aborted) controller.abort(CANCEL_LOCK_LOST);
    });
  }, CANCEL_CHECK_MS);
  timer.unref();
  return {
    signal: controller.signal,
    check,
    message: () => seen,
    stop: () => {
      clearInterval(timer);
      jobSignal?.removeEventListener('abort', onJobAbort);
    },
  };
}

/**
 * The inputs and run policy a job is judged with. The benchmark input is the job's own (the
 * platform resolved it: the organizer's settings, else the manifest): a runner never substitutes
 * its own size. Only its seed may come from the runner's seed variable, when the platform knows
 * none. A job of an older producer, without a definition, is judged on the organizer's settings
 * or the manifest's size. The runner's pair budget still caps the runs (development mode).
 */
export function judgeInputsForJob(
  data: JudgingJob,
  challenge: Challenge,
  settings: Pick<JudgingSettings, 'secret' | 'publicBytes' | 'maxPairs'>,
): JudgeInputs {
  const { manifest } = challenge;
  return resolveJudgeInputs({
    challenge,
    definition: data.benchmark ?? {
      sizeBytes: data.settings?.benchmarkBytes ?? manifest.inputs.benchmark.size,
      seed: data.settings?.benchmarkSeed,
      development: false,
    },
    secret: settings.secret,
    publicBytes: settings.publicBytes,
    maxPairs: settings.maxPairs,
    precision: data.settings?.precision,
  });
}

/**
 * Takes the host lock (one timed job per host, whichever runner): says who is ahead while it
 * waits, then breaks a dead holder's lock and sweeps the scratch folders it left.
 */
export async function takeHostLock(
  settings: Pick<JudgingSettings, 'hostLockFile' | 'runnerId' | 'workRoot'>,
  note: (line: string) => void,
  onWaiting: (ahead: number) => void,
  signal: AbortSignal | undefined,
): Promise<HostLock> {
  const lock = await acquireHostLock({
    file: settings.hostLockFile,
    owner: settings.runnerId,
    signal,
    onQueue: (ahead, holder) => {
      if (ahead === 0) {
        note('the host lock is ours');
        return;
      }
      const who = holder ? `${holder.owner} (pid ${holder.pid})` : 'another process';
      note(`waiting for the host lock: ${ahead} judging(s) ahead, first ${who}`);
      onWaiting(ahead);
    },
  });
  try {
    if (lock.brokeStale)
      note(`broke a stale host lock left by ${lock.brokeStale.owner} (pid ${lock.brokeStale.pid})`);
    const swept = await sweepStaleScratch(settings.workRoot);
    if (swept.length) note(`removed ${swept.length} scratch folder(s) left by a dead runner`);
  } catch (error) {
    await lock.release();
    throw error;
  }
  return lock;
}

async function judgeUnderHostLock(
  data: JudgingJob,
  settings: JudgingSettings,
  publisher: ReturnType<typeof createJobPublisher>,
  note: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<JudgingResult> {
  const scheduler = settings.scheduler ?? runnerHostScheduler(settings);
  const leave = await scheduler.enter({
    note,
    onWaiting: (ahead) =>
      publisher.progress({
        stage: 'waiting',
        fraction: 0,
        message: `waiting for the host: ${ahead} judging${ahead === 1 ? '' : 's'} ahead`,
        detail: { aheadForHost: ahead },
      }),
    signal,
  });
  const { sharing } = scheduler;
  try {
    const { challenge } = await loadJobChallenge(data);
    // A cross-compile is untimed work: beside other builds, never beside another judging's round.
    const { preCheck } = settings;
    const settled =
      preCheck && (await sharing.turns.untimed(() => preCheck(data, challenge, note, signal)));
    if (settled) return settled;
    const { timed, ...inputs } = judgeInputsForJob(data, challenge, settings);
    note(
      `benchmark input ${describeTimedInput(timed)}${timed.development ? ' (development)' : ''}` +
        (data.settings ? `; organizer settings: ${Object.keys(data.settings).join(', ')}` : ''),
    );
    if (!settings.devMode && !inputs.benchmarkSeedIsSecret)
      throw new PlatformError(
        `no benchmark seed: the job carries none and ${challenge.manifest.inputs.benchmark.seedEnv} ` +
          'is not set on this runner (set it where the web app and scorer run, or in the console)',
      );
    // Measured in a turn of its own, so no judging disturbs it (once per host and boot, then cached).
    const memoryBandwidth = await sharing.turns.turn(() =>
      hostMemoryBandwidth(settings.dataDir, { log: note }),
    );
    // The whole judging is bounded too, not only each run: a wedged one is handed back. Time spent
    // waiting for the host (other judgings' turns, other entrants' rounds) is not silence.
    const watchdog = startStallWatchdog(stallLimitMs(challenge.manifest.limits));
    const judging = signal ? AbortSignal.any([signal, watchdog.signal]) : watchdog.signal;
    const result = await judge({
      challenge,
      target: data.target,
      memoryBandwidth,
      patchText: data.patchText,
      sandbox: settings.sandbox,
      dataDir: settings.dataDir,
      workRoot: settings.workRoot,
      ...inputs,
      cpu: settings.cpu,
      judgingId: data.judgingId,
      onProgress: (event) => {
        watchdog.touch();
        publisher.progress(event);
      },
      onLog: (line) => {
        watchdog.touch();
        publisher.log(line);
      },
      signal: judging,
      cachegrindOff: cachegrindOff(data, settings),
      // A development-sized contest input is labelled like a host that is not the target.
      devMode: settings.devMode || timed.development,
      sharing: pausedWhileWaiting(sharing, watchdog),
    })
      .catch((error: unknown) => {
        throw watchdog.message() ? new PlatformError(watchdog.message()!) : error;
      })
      .finally(() => watchdog.stop());
    const wedged = watchdog.message();
    if (wedged) throw new PlatformError(wedged);
    return { ...result, benchmark: timed };
  } finally {
    await leave();
  }
}
