// Builders for final evaluation tests: a contest with judged finalists, and a FAKE runner for final
// session jobs (a BullMQ worker that times nothing: it answers contract-valid rounds and results
// computed from speeds written in the patches). The real session runner is helper "engine"'s
// (runner/final/) and is tested there; these tests are about the platform around it.
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  BASELINE_ENTRANT,
  FINAL_SESSION_JOB_NAME,
  finalSessionJobSchema,
  finalSessionResultSchema,
  judgeQueueName,
  judgingJobResultSchema,
  judgingJobSchema,
  type FinalRound,
  type FinalSessionResult,
  type TargetId,
} from '../../contracts';
import type { Db } from '../../lib/server/db/client';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { recordJudgingResult } from '../../lib/server/db/judgings/record-judging-result';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

/** A registered challenge (wordcount's manifest under `slug`) whose deadline is in the past. */
export async function finishedContest(db: Db, slug: string): Promise<number> {
  const { version } = await registerChallenge(db, { slug });
  await db.challenge.update({
    where: { slug },
    data: { deadline: new Date(Date.now() - 60_000) },
  });
  return version;
}

/**
 * An accepted submission of `userId` with the provisional speedup `speedup` on both targets; its
 * patch text carries `speed=<final speed>` (what the fake runner times it at) or `broken`.
 */
export async function acceptedSubmission(
  db: Db,
  options: { userId: string; slug: string; version: number; speedup: number; patch: string },
): Promise<string> {
  const { submissionId, judgings } = await createSubmission(db, {
    userId: options.userId,
    challengeSlug: options.slug,
    patchText: options.patch,
  });
  for (const j of judgings)
    await recordJudgingResult(db, {
      judgingId: j.judgingId,
      round: j.round,
      result: makeResult({
        slug: options.slug,
        version: options.version,
        target: j.target as TargetId,
        speedup: options.speedup,
      }),
    });
  return submissionId;
}

export async function finalist(
  db: Db,
  options: { name: string; slug: string; version: number; speedup: number; patch: string },
): Promise<{ userId: string; submissionId: string }> {
  const userId = await makeUser(db, options.name);
  return { userId, submissionId: await acceptedSubmission(db, { ...options, userId }) };
}

const HOST = {
  hostname: 'fake-judge',
  os: 'linux',
  kernel: '6.1.0',
  cpuModel: 'Test CPU',
  cpuVendor: 'GenuineIntel',
  cores: 2,
  compiler: 'clang 14',
  governor: null,
  turbo: null,
  sandbox: 'bubblewrap',
  devMode: true,
  emulated: false,
};

function speedOf(patch: string): number | null {
  if (patch.includes('broken')) return null;
  const m = /speed=([\d.]+)/.exec(patch);
  return m ? Number(m[1]) : 1;
}

/** A round of the fake session: the baseline at 100 ms and each entrant at 100 / speed, ±1%. */
export function fakeRound(
  round: number,
  entrants: { entrantId: string; speed: number }[],
): FinalRound {
  const ids = [BASELINE_ENTRANT, ...entrants.map((e) => e.entrantId)];
  const order = ids.map((_, i) => ids[(i + round) % ids.length] as string);
  const noise = (k: number) => 1 + 0.01 * Math.sin(round * 7.3 + k * 1.9);
  return {
    round,
    order,
    runs: order.map((entrant, k) => {
      const speed =
        entrant === BASELINE_ENTRANT
          ? 1
          : (entrants.find((e) => e.entrantId === entrant)?.speed ?? 1);
      const wallMs = (100 / speed) * noise(k);
      return {
        entrant,
        wallMs,
        cpuMs: wallMs * 0.95,
        correct: true,
        failure: null,
        evidence: null,
      };
    }),
    discardedAttempts: 0,
    hostFingerprintHash: 'fakehost',
    finishedAt: new Date(Date.now() + round).toISOString(),
  };
}

export interface FakeFinalRunnerOptions {
  /** Called after each round is reported (e.g. to hold the job there). */
  afterRound?: (round: number) => Promise<void> | void;
  /** Answer a judgeError instead of timing. */
  judgeError?: string;
  /** Entrants at least this fast are reported faster than the host can read the input. */
  implausibleFrom?: number;
  /** "Rejudge N times" judgings: the speedup to answer (default 2.5). */
  repeatSpeedup?: number;
}

/**
 * A FAKE runner for one target's queue: final session jobs get contract-valid rounds (progress
 * per round, like the real one) and a result; repeat judgings get a canned judging result.
 */
export function fakeFinalRunner(
  target: TargetId,
  connection: Redis,
  prefix: string,
  options: FakeFinalRunnerOptions = {},
): Worker {
  const worker = new Worker(
    judgeQueueName(target),
    async (job: Job) => {
      if (job.name !== FINAL_SESSION_JOB_NAME) {
        const data = judgingJobSchema.parse(job.data);
        return judgingJobResultSchema.parse({
          judgingId: data.judgingId,
          round: data.round,
          runnerId: `fake-${target}`,
          result: makeResult({
            slug: data.challenge.slug,
            version: data.challenge.version,
            target,
            judgingId: data.judgingId,
            speedup: options.repeatSpeedup ?? 2.5,
          }),
        });
      }
      const data = finalSessionJobSchema.parse(job.data);
      const base = {
        sessionId: data.sessionId,
        part: data.part,
        runnerId: `fake-${target}`,
        host: HOST,
        plausibility: {},
        inputBytes: data.benchmark.sizeBytes,
        inputSha256: 'ab'.repeat(32),
        warnings: [],
        buildMs: 10,
        timingMs: 10,
        runsWallMs: 10,
        devMode: true,
        emulated: false,
      };
      if (options.judgeError)
        return finalSessionResultSchema.parse({
          ...base,
          rounds: data.done,
          excluded: [],
          judgeError: options.judgeError,
        });
      const timed = data.entrants.flatMap((e) => {
        const speed = speedOf(e.patchText);
        return speed === null ? [] : [{ entrantId: e.entrantId, speed }];
      });
      const rounds = [...data.done];
      for (const r of data.rounds) {
        if (rounds.some((d) => d.round === r)) continue;
        const round = fakeRound(r, timed);
        rounds.push(round);
        await job.updateProgress({
          sessionId: data.sessionId,
          part: data.part,
          stage: 'rounds',
          roundsDone: rounds.length,
          roundsPlanned: data.rounds.length,
          etaMs: null,
          message: `round ${r}`,
          round,
        });
        await options.afterRound?.(r);
      }
      const plausibility = Object.fromEntries(
        timed.map((e) => [
          e.entrantId,
          {
            bandwidthBytesPerSecond: 1e9,
            inputBytes: data.benchmark.sizeBytes,
            minPlausibleMs: 60,
            fastestMs: 100 / e.speed,
            flagged: options.implausibleFrom !== undefined && e.speed >= options.implausibleFrom,
          },
        ]),
      );
      const result: FinalSessionResult = finalSessionResultSchema.parse({
        ...base,
        plausibility,
        rounds,
        excluded: data.entrants
          .filter((e) => speedOf(e.patchText) === null)
          .map((e) => ({ entrantId: e.entrantId, reason: 'did not build' })),
        judgeError: null,
      });
      return result;
    },
    { connection, prefix, name: `fake-${target}` },
  );
  worker.on('error', () => {});
  return worker;
}
