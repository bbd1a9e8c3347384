// The scorer's write: stores one judging's final result with its runs, cancels the submission's other
// judgings when this one failed for the contestant (unless the organizer asked for every target),
// then settles the submission (status, verdict, combined score, leaderboard), all in one
// transaction. Delivering the same result twice, a result of an earlier round, or one for a
// cancelled judging changes nothing.
import { isContestantFault, notJudgedMessage, type JudgingResult } from '../../../../contracts';
import type { Db, Tx } from '../client';
import { InvalidResultError, NotFoundError } from '../errors';
import type { Prisma } from '../generated/prisma/client';
import { hostFingerprintHash } from '../../../../contracts/host-fingerprint-hash';
import { storableText, toJson } from '../json';
import { settleSubmission, type SettledSubmission } from '../submissions/settle-submission';

export interface RecordJudgingResultOptions {
  judgingId: string;
  /** The round the job was enqueued for (see Judging.round). */
  round: number;
  /** Already parsed with judgingResultSchema by the consumer. */
  result: JudgingResult;
}

/** A judging this result made pointless: the scorer tells its runner to stop. */
export interface CancelledJudging {
  judgingId: string;
  round: number;
  target: string;
}

export interface RecordJudgingResultOutcome {
  /**
   * 'duplicate': this round's result was already stored; 'stale': the judging was rejudged since;
   * 'cancelled': the judging was cancelled (the submission failed on another target) before it ended.
   */
  outcome: 'recorded' | 'duplicate' | 'stale' | 'cancelled';
  submission: SettledSubmission;
  /** The submission's other judgings cancelled by this result (recorded outcomes only). */
  cancelled: CancelledJudging[];
}

export async function recordJudgingResult(
  db: Db,
  options: RecordJudgingResultOptions,
): Promise<RecordJudgingResultOutcome> {
  const { judgingId, round, result } = options;
  return db.$transaction(
    async (tx) => {
      // Lock the submission first: its targets' results arrive concurrently, and exactly one of
      // them must see every judging done and compute the score.
      const locked = await tx.$queryRaw<{ id: string }[]>`
        SELECT s.id FROM "Submission" s JOIN "Judging" j ON j."submissionId" = s.id
        WHERE j.id = ${judgingId} FOR UPDATE OF s`;
      const submissionId = locked[0]?.id;
      if (!submissionId) throw new NotFoundError(`No judging ${judgingId}`);

      const judging = await findJudging(tx, judgingId);
      const current: SettledSubmission = {
        id: judging.submission.id,
        status: judging.submission.status,
        verdict: judging.submission.verdict,
        score: judging.submission.score,
      };
      if (judging.round !== round) return { outcome: 'stale', submission: current, cancelled: [] };
      if (judging.status === 'DONE')
        return { outcome: 'duplicate', submission: current, cancelled: [] };
      if (judging.status === 'CANCELLED')
        return { outcome: 'cancelled', submission: current, cancelled: [] };

      const expected = judging.submission.challengeVersion;
      if (
        result.target !== judging.target.name ||
        result.challenge.slug !== expected.challenge.slug ||
        result.challenge.version !== expected.version ||
        (result.judgingId !== null && result.judgingId !== judgingId)
      )
        throw new InvalidResultError(
          `Result for ${result.challenge.slug} v${result.challenge.version} ${result.target} (judging ${result.judgingId}) delivered to judging ${judgingId} of ${expected.challenge.slug} v${expected.version} ${judging.target.name}`,
        );
      const estimate = result.stages.measure?.estimate ?? null;
      if (result.verdict === 'ACCEPTED' && !estimate)
        throw new InvalidResultError(`Judging ${judgingId}: ACCEPTED without a speedup estimate`);

      await storeResult(tx, judgingId, result);
      const cancelled =
        isContestantFault(result.verdict) && !expected.challenge.judgeAllTargets
          ? await cancelOtherJudgings(tx, submissionId, judgingId, judging.target.name)
          : [];
      return {
        outcome: 'recorded',
        submission: await settleSubmission(tx, submissionId),
        cancelled,
      };
    },
    { timeout: 30_000 },
  );
}

/** The judging with its target and its submission's state and challenge version. */
function findJudging(tx: Tx, judgingId: string) {
  return tx.judging.findUniqueOrThrow({
    where: { id: judgingId },
    select: {
      round: true,
      status: true,
      target: { select: { name: true } },
      submission: {
        select: {
          id: true,
          status: true,
          verdict: true,
          score: true,
          challengeVersion: {
            select: {
              version: true,
              challenge: { select: { slug: true, judgeAllTargets: true } },
            },
          },
        },
      },
    },
  });
}

/** The round's runs and the judging's verdict, estimate, host and times. */
async function storeResult(tx: Tx, judgingId: string, result: JudgingResult): Promise<void> {
  const estimate = result.stages.measure?.estimate ?? null;
  const runs = result.stages.measure?.runs ?? [];
  await tx.run.deleteMany({ where: { judgingId } });
  await tx.run.createMany({ data: runs.map((run, seq) => runRow(judgingId, seq, run)) });
  await tx.judging.update({
    where: { id: judgingId },
    data: {
      status: 'DONE',
      verdict: result.verdict,
      message: storableText(result.message),
      result: toJson(result),
      speedup: estimate?.speedup ?? null,
      ciLow: estimate?.ciLow ?? null,
      ciHigh: estimate?.ciHigh ?? null,
      hostFingerprint: toJson(result.host),
      hostFingerprintHash: hostFingerprintHash(result.host),
      devMode: result.host.devMode,
      emulated: result.host.emulated,
      startedAt: new Date(result.startedAt),
      finishedAt: new Date(result.finishedAt),
    },
  });
}

/**
 * The submission can no longer be accepted: its other targets' unsettled judgings are cancelled
 * rather than judged for nothing (the scorer then stops any runner still on them).
 */
async function cancelOtherJudgings(
  tx: Tx,
  submissionId: string,
  failedJudgingId: string,
  failedTarget: string,
): Promise<CancelledJudging[]> {
  const others = await tx.judging.findMany({
    where: {
      submissionId,
      id: { not: failedJudgingId },
      status: { in: ['QUEUED', 'WAITING', 'JUDGING'] },
    },
    select: { id: true, round: true, target: { select: { name: true } } },
  });
  if (others.length === 0) return [];
  await tx.judging.updateMany({
    where: { id: { in: others.map((j) => j.id) } },
    data: {
      status: 'CANCELLED',
      message: notJudgedMessage(failedTarget),
      finishedAt: new Date(),
    },
  });
  return others.map((j) => ({ judgingId: j.id, round: j.round, target: j.target.name }));
}

type ResultRun = NonNullable<JudgingResult['stages']['measure']>['runs'][number];

function runRow(judgingId: string, seq: number, run: ResultRun): Prisma.RunCreateManyInput {
  return {
    judgingId,
    seq,
    side: run.side === 'baseline' ? 'BASELINE' : 'SOLUTION',
    kind: run.kind === 'warmup' ? 'WARMUP' : 'TIMED',
    pair: run.pair,
    wallMs: run.stats.wallMs,
    userMs: run.stats.userMs,
    sysMs: run.stats.sysMs,
    maxRssBytes: BigInt(run.stats.maxRssBytes),
    cpuUtilization: run.stats.cpuUtilization,
    outputBytes: BigInt(run.outputBytes),
    outputSha256: run.outputSha256,
    correct: run.correct,
    exitCode: run.exitCode,
    signal: run.signal,
    counters: toJson(run.counters),
  };
}
