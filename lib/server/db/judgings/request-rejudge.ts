// An organizer's rejudge of one submission, or of every submission of a challenge (e.g. after the
// benchmark input changed). Each judging starts a new round: its old result and runs are cleared,
// a result still arriving from the old round is ignored. The caller enqueues the returned judgings.
import type { Db } from '../client';
import { appendAuditLog } from '../audit/append-audit-log';
import { NotFoundError } from '../errors';
import { Prisma } from '../generated/prisma/client';
import { refreshLeaderboardEntry } from '../leaderboard/refresh-leaderboard-entry';

export type RequestRejudgeOptions = { actorId: string; reason: string } & (
  { submissionId: string } | { challengeSlug: string }
);

export interface RejudgedJudging {
  judgingId: string;
  round: number;
  submissionId: string;
  target: string;
}

export async function requestRejudge(
  db: Db,
  options: RequestRejudgeOptions,
): Promise<RejudgedJudging[]> {
  return db.$transaction(
    async (tx) => {
      let where: Prisma.SubmissionWhereInput;
      if ('submissionId' in options) {
        where = { id: options.submissionId };
      } else {
        const challenge = await tx.challenge.findUnique({
          where: { slug: options.challengeSlug },
          select: { id: true },
        });
        if (!challenge) throw new NotFoundError(`No challenge ${options.challengeSlug}`);
        where = { challengeId: challenge.id };
      }
      const submissions = await tx.submission.findMany({
        where,
        select: { id: true, challengeId: true, userId: true },
      });
      if ('submissionId' in options && submissions.length === 0)
        throw new NotFoundError(`No submission ${options.submissionId}`);
      const ids = submissions.map((s) => s.id);
      // Same lock order as the scorer (submission rows, by id) so the two never deadlock for long.
      await tx.$queryRaw`SELECT id FROM "Submission" WHERE id = ANY(${ids}) ORDER BY id FOR UPDATE`;

      await tx.run.deleteMany({ where: { judging: { submissionId: { in: ids } } } });
      await tx.judging.updateMany({
        where: { submissionId: { in: ids } },
        data: {
          status: 'QUEUED',
          round: { increment: 1 },
          attempts: 0,
          runner: null,
          verdict: null,
          message: null,
          result: Prisma.DbNull,
          speedup: null,
          ciLow: null,
          ciHigh: null,
          hostFingerprint: Prisma.DbNull,
          hostFingerprintHash: null,
          devMode: false,
          emulated: false,
          queuedAt: new Date(),
          startedAt: null,
          finishedAt: null,
        },
      });
      await tx.submission.updateMany({
        where: { id: { in: ids } },
        data: { status: 'QUEUED', verdict: null, score: null, judgedAt: null },
      });
      const owners = new Map(submissions.map((s) => [`${s.challengeId}:${s.userId}`, s]));
      for (const s of owners.values())
        await refreshLeaderboardEntry(tx, { challengeId: s.challengeId, userId: s.userId });

      await appendAuditLog(tx, {
        actorId: options.actorId,
        action: 'submissionId' in options ? 'rejudge.submission' : 'rejudge.challenge',
        subjectType: 'submissionId' in options ? 'submission' : 'challenge',
        subjectId: 'submissionId' in options ? options.submissionId : options.challengeSlug,
        reason: options.reason,
        payload: { submissions: ids.length },
      });

      const judgings = await tx.judging.findMany({
        where: { submissionId: { in: ids } },
        orderBy: [{ submissionId: 'asc' }, { targetId: 'asc' }],
        select: { id: true, round: true, submissionId: true, target: { select: { name: true } } },
      });
      return judgings.map((j) => ({
        judgingId: j.id,
        round: j.round,
        submissionId: j.submissionId,
        target: j.target.name,
      }));
    },
    { timeout: 60_000 },
  );
}
