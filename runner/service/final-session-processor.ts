// The BullMQ processor of final-session jobs (contracts/final.ts, FINAL_SESSION_JOB_NAME on a judge
// queue): validates the payload, takes the host lock as a judging does, runs the session library
// and answers with its FinalSessionResult. After every round the job's data gets the round in its
// `done` checkpoint (so a runner that takes a stalled job over continues from there) and the job's
// progress carries the round (so the scorer records it as the session goes).
//
// A session the host could not time (judgeError: too busy, the baseline failed) is retried with
// the producer's attempts and backoff, from its checkpoint; the last attempt returns it.
//
// After a Redis loss the scorer's reconciler queues a part again under the same job id: a copy this
// runner takes while it still times the part waits for that session and answers with its result
// (judgings-in-hand.ts, the rule judgings follow); a copy another runner takes makes this one
// abandon its session within seconds and stop writing on the job.
import { resolveJudgeInputs } from '../../lib/core/challenge/judge-inputs';
import { hostMemoryBandwidth } from '../host/memory-bandwidth';
import { UnrecoverableError, type Job } from 'bullmq';
import {
  FINAL_SESSION_JOB_NAME,
  finalSessionCancelKey,
  finalSessionJobId,
  finalSessionJobSchema,
  finalSessionProgressSchema,
  type FinalRound,
  type FinalSessionJob,
  type FinalSessionProgress,
  type FinalSessionResult,
} from '../../contracts/final';
import { issuesInline } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { runFinalSession } from '../final/final-session';
import type { InputSpec } from '../../lib/core/challenge/inputs';
import { JudgingCancelledError } from '../judge/errors';
import { createTargetPlatform, type TargetPlatform } from '../platform';
import {
  answerAfterJudgingInHand,
  CANCEL_LOCK_LOST,
  CANCEL_NOT_COUNTING,
  handBackJob,
  jobContext,
  jobLock,
  loadJobChallenge,
  PlatformError,
  refuseIfCancelledBefore,
  takeHostLock,
  watchCancelFlag,
  whileOurs,
  writeFailures,
  type CancelWatch,
  type JobContext,
  type JobWrites,
  type JudgingSettings,
} from './judging-processor';
import { judgingsInHand, withCopiesSignal } from './judgings-in-hand';

const MAX_LOG_LINES = 1000;

export type FinalSessionProcessor = (
  job: Job,
  token?: string,
  signal?: AbortSignal,
) => Promise<FinalSessionResult>;

/** Whether a job on a judge queue is a final session (else a judging). */
export function isFinalSessionJob(job: Pick<Job, 'name'>): boolean {
  return job.name === FINAL_SESSION_JOB_NAME;
}

/** The payload, or an UnrecoverableError: a malformed job or one for another target never runs. */
function parseJob(job: Job, settings: JudgingSettings): FinalSessionJob {
  const parsed = finalSessionJobSchema.safeParse(job.data);
  if (!parsed.success) {
    settings.log(`job ${job.id}: invalid final session payload, failed without retries`);
    throw new UnrecoverableError(
      `invalid final session job payload: ${issuesInline(parsed.error, 5)}`,
    );
  }
  const data = parsed.data;
  if (data.target !== settings.target)
    throw new UnrecoverableError(
      `a final session for target ${data.target} on the queue of target ${settings.target}`,
    );
  const expected = finalSessionJobId(data.sessionId, data.part);
  if (job.id !== expected) settings.log(`job ${job.id}: its id is not ${expected}`);
  return data;
}

/**
 * Progress and checkpoint writes in order, none thrown at the session: a round's data is written
 * before the progress that announces it.
 */
function createSessionPublisher(
  job: JobWrites & Pick<Job, 'id'>,
  data: FinalSessionJob,
  log: (line: string) => void,
) {
  let chain: Promise<void> = Promise.resolve();
  const failed = writeFailures(job, log);
  const enqueue = (what: string, write: () => Promise<unknown>) => {
    chain = chain.then(write).then(
      () => undefined,
      (error: Error) => failed(what, error),
    );
  };
  const done: FinalRound[] = [...data.done];
  let logLines = 0;
  return {
    progress(progress: FinalSessionProgress) {
      const checked = finalSessionProgressSchema.parse(progress);
      enqueue('progress', () => job.updateProgress(checked));
    },
    async checkpoint(round: FinalRound) {
      done.push(round);
      const next: FinalSessionJob = { ...data, done: [...done] };
      enqueue('checkpoint', () => job.updateData(next));
      await chain;
    },
    log(line: string) {
      // Bounded like a judging's log (job-publisher.ts): a busy host logs every discarded attempt.
      logLines += 1;
      if (logLines > MAX_LOG_LINES + 1) return;
      const text =
        logLines > MAX_LOG_LINES
          ? `… further log lines dropped (more than ${MAX_LOG_LINES})`
          : line;
      enqueue('log', () => job.log(text.slice(0, 4000)));
    },
    flush: () => chain,
  };
}

export function createFinalSessionProcessor(settings: JudgingSettings): FinalSessionProcessor {
  const inHand = judgingsInHand<FinalSessionResult>();
  // Three declared parameters: BullMQ only hands a processor an AbortSignal when it takes one.
  return async (job, token, signal) => {
    const data = parseJob(job, settings);
    if (settings.handingBack())
      return handBackJob(job, token, settings, 'the runner is shutting down');
    // Taken in the same tick as the parse: two copies arriving at once cannot both time the part.
    const taken = inHand.take(finalSessionJobId(data.sessionId, data.part));
    if (taken.held)
      return answerAfterJudgingInHand(
        taken,
        { job, token, signal, settings },
        {
          find: async (released) => released,
          describe: (result) => `${result.rounds.length} rounds`,
        },
      );
    let answer: FinalSessionResult | undefined;
    try {
      const attempt = { token, lock: jobLock(job, token, taken, settings) };
      answer = await processFinalSessionJob(
        settings,
        job,
        data,
        withCopiesSignal(signal, taken),
        attempt,
      );
      return answer;
    } finally {
      taken.release(answer);
    }
  };
}

async function processFinalSessionJob(
  settings: JudgingSettings,
  job: Job,
  data: FinalSessionJob,
  signal: AbortSignal,
  { token, lock }: { token: string | undefined; lock: ReturnType<typeof jobLock> },
): Promise<FinalSessionResult> {
  // The organizer's cancel flag aborts the session like a shutdown would, but the job then ends.
  const cancel = watchCancelFlag(
    settings.prefix === undefined
      ? null
      : finalSessionCancelKey(settings.prefix, data.sessionId, data.part),
    settings,
    signal,
    lock,
  );
  const publisher = createSessionPublisher(
    Object.assign(whileOurs(job, cancel.signal), { id: job.id }),
    data,
    settings.log,
  );
  const context = jobContext(job, token, data, settings, publisher);
  context.note(
    `final session ${data.sessionId} part ${data.part}, attempt ${context.attempt} of ` +
      `${context.attempts} on ${settings.host.hostname}: ${data.done.length} of ` +
      `${data.rounds.length} rounds done`,
  );
  settings.onJobStart?.(
    { judgingId: job.id ?? finalSessionJobId(data.sessionId, data.part), round: data.part },
    job.id ?? '',
  );
  await refuseIfCancelledBefore(cancel, context, publisher, 'not timed');
  const started = Date.now();
  const result = await runSession(context, publisher, cancel);
  return sessionOutcome(context, result, started);
}

/**
 * The session under the host lock. A platform fault is retried (from the checkpoint); a cancelled
 * session ends (the organizer's cancel), is abandoned (lock lost) or handed back.
 */
async function runSession(
  context: JobContext<FinalSessionJob>,
  publisher: ReturnType<typeof createSessionPublisher>,
  cancel: CancelWatch,
): Promise<FinalSessionResult> {
  const { data, settings, note } = context;
  const session = cancel.signal;
  try {
    return await sessionUnderHostLock(data, settings, publisher, note, session);
  } catch (error) {
    if (!session.aborted && !(error instanceof JudgingCancelledError)) {
      const message =
        error instanceof PlatformError
          ? error.message
          : `the runner failed: ${(error as Error).message ?? String(error)}`;
      note(message);
      // The platform's fault: retried (from the checkpoint) like a judging's JUDGE_ERROR.
      throw new Error(`final session: ${message}`);
    }
    if (session.reason === CANCEL_NOT_COUNTING) {
      const why = cancel.message() ?? 'the final evaluation was cancelled';
      note(`stopped: ${why}`);
      // Final: the rounds timed so far stay in the job's data; nobody wants the rest.
      throw new UnrecoverableError(why);
    }
    if (session.reason === CANCEL_LOCK_LOST)
      throw new Error('the job lock was lost mid-session; this attempt was abandoned');
    const reason: unknown = session.reason;
    return handBackJob(
      context.job,
      context.token,
      settings,
      typeof reason === 'string' ? reason : 'cancelled',
    );
  } finally {
    cancel.stop();
    await publisher.flush();
    settings.onJobEnd?.(context.job.id ?? '');
  }
}

/** A session the host could not time is retried until the last attempt, which returns it. */
function sessionOutcome(
  context: JobContext<FinalSessionJob>,
  result: FinalSessionResult,
  started: number,
): FinalSessionResult {
  const { job, settings, attempt, attempts } = context;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.judgeError !== null && attempt < attempts) {
    settings.log(`job ${job.id}: not timed in ${seconds} s, to be retried: ${result.judgeError}`);
    throw new Error(`final session (attempt ${attempt} of ${attempts}): ${result.judgeError}`);
  }
  settings.log(
    `job ${job.id}: ${result.rounds.length} rounds in ${seconds} s` +
      (result.judgeError ? `, judge error: ${result.judgeError}` : ''),
  );
  return result;
}

/** The platform adapter for the job's target on this host; its failure is the platform's. */
async function jobPlatform(
  challenge: Challenge,
  data: FinalSessionJob,
  settings: JudgingSettings,
): Promise<TargetPlatform> {
  const target = challenge.manifest.targets[data.target];
  if (!target)
    throw new PlatformError(`challenge ${data.challenge.slug} has no target ${data.target}`);
  try {
    return await createTargetPlatform({
      target,
      sandbox: settings.sandbox,
      dataDir: settings.dataDir,
      log: settings.log,
    });
  } catch (error) {
    throw new PlatformError(`no platform for ${data.target}: ${(error as Error).message}`);
  }
}

/** The session's input: the job's size and seed (else this runner's seed variable, as judgings). */
function jobInput(
  challenge: Challenge,
  data: FinalSessionJob,
  settings: JudgingSettings,
): InputSpec {
  const inputs = resolveJudgeInputs({
    challenge,
    definition: data.benchmark,
    secret: settings.secret,
  });
  if (!inputs.benchmarkSeedIsSecret && !settings.devMode)
    throw new PlatformError(
      `no benchmark seed: the job carries none and ${challenge.manifest.inputs.benchmark.seedEnv} is not set on this runner`,
    );
  return inputs.benchmark;
}

async function sessionUnderHostLock(
  data: FinalSessionJob,
  settings: JudgingSettings,
  publisher: ReturnType<typeof createSessionPublisher>,
  note: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<FinalSessionResult> {
  const waiting = (ahead: number) =>
    publisher.progress({
      sessionId: data.sessionId,
      part: data.part,
      stage: 'waiting',
      roundsDone: data.done.length,
      roundsPlanned: new Set(data.rounds).size,
      etaMs: null,
      message: `waiting for the host: ${ahead} judging${ahead === 1 ? '' : 's'} ahead`,
    });
  const lock = await takeHostLock(settings, note, waiting, signal);
  try {
    const { challenge } = await loadJobChallenge(data);
    const platform = await jobPlatform(challenge, data, settings);
    return await runFinalSession({
      challenge,
      target: data.target,
      platform,
      sandbox: settings.sandbox,
      dataDir: settings.dataDir,
      workRoot: settings.workRoot,
      benchmark: jobInput(challenge, data, settings),
      entrants: data.entrants.map((e) => ({ id: e.entrantId, patchText: e.patchText })),
      sessionId: data.sessionId,
      part: data.part,
      runnerId: settings.runnerId,
      rounds: data.rounds,
      done: data.done,
      maxDiscardedRounds: data.maxDiscardedRounds,
      cpu: settings.cpu,
      memoryBandwidth: await hostMemoryBandwidth(settings.dataDir, {
        log: (line) => publisher.log(line),
      }),
      // A development-sized input is labelled like a host that is not the target.
      devMode: settings.devMode || data.benchmark.development,
      onProgress: (progress) => publisher.progress(progress),
      onRound: (round) => publisher.checkpoint(round),
      onLog: (line) => publisher.log(line),
      signal,
    });
  } finally {
    await lock.release();
  }
}
