// The scorer's write: stores one judging's final result with its runs, then settles the submission
// (status, verdict, combined score, leaderboard), all in one transaction. Delivering the same result
// twice, or a result of an earlier round, changes nothing.
import type { JudgingResult } from '../../contracts';
import type { Db } from './client';
import { InvalidResultError, NotFoundError } from './errors';
import type { Prisma } from './generated/prisma/client';
import { hostFingerprintHash } from './host-fingerprint-hash';
import { storableText, toJson } from './json';
import { settleSubmission, type SettledSubmission } from './settle-submission';

export interface RecordJudgingResultOptions {
  judgingId: string;
  /** The round the job was enqueued for (see Judging.round). */
  round: number;
  /** Already parsed with judgingResultSchema by the consumer. */
  result: JudgingResult;
}

export interface RecordJudgingResultOutcome {
  /** 'duplicate': this round's result was already stored; 'stale': the judging was rejudged since. */
  outcome: 'recorded' | 'duplicate' | 'stale';
  submission: SettledSubmission;
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

      const judging = await tx.judging.findUniqueOrThrow({
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
                select: { version: true, challenge: { select: { slug: true } } },
              },
            },
          },
        },
      });
      const current: SettledSubmission = {
        id: judging.submission.id,
        status: judging.submission.status,
        verdict: judging.submission.verdict,
        score: judging.submission.score,
      };
      if (judging.round !== round) return { outcome: 'stale', submission: current };
      if (judging.status === 'DONE') return { outcome: 'duplicate', submission: current };

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
      return { outcome: 'recorded', submission: await settleSubmission(tx, submissionId) };
    },
    { timeout: 30_000 },
  );
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
