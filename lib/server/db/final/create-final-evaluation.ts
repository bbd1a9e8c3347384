// The database side of starting a contest's final evaluation (docs/organizers.md): the evaluation
// with its secret seed, one entrant per finalist, one session per target, and the audit record, in
// one transaction that also refuses a second evaluation while one is running. The caller
// (lib/server/submit/final-evaluation.ts) checks the timeline and enqueues the sessions.
import { MAX_FINALISTS } from '../../../../contracts';
import { appendAuditLog } from '../audit/append-audit-log';
import type { Db, Tx } from '../client';
import { NotFoundError, RefusedError } from '../errors';
import { listFinalists } from './list-finalists';

export interface CreateFinalEvaluationOptions {
  actorId: string;
  challengeSlug: string;
  challengeVersionId: string;
  seed: string;
  keptProvisionalSeed: boolean;
  benchmarkBytes: number;
  rounds: number;
  spreadAcrossHosts: boolean;
  errorRate: number;
  /** Target name → parts (1 unless spread across hosts: one per live runner). */
  parts: Record<string, number>;
}

export interface CreatedFinalEvaluation {
  evaluationId: string;
  finalists: number;
  sessions: { sessionId: string; target: string; parts: number }[];
}

export async function createFinalEvaluation(
  db: Db,
  options: CreateFinalEvaluationOptions,
): Promise<CreatedFinalEvaluation> {
  return db.$transaction(
    async (tx) => {
      const { challenge, finalists } = await lockFinalists(tx, options.challengeSlug);
      const targets = await tx.target.findMany({
        where: { challengeVersionId: options.challengeVersionId },
        orderBy: { name: 'asc' },
        select: { id: true, name: true },
      });
      const evaluation = await tx.finalEvaluation.create({
        data: {
          challengeId: challenge.id,
          challengeVersionId: options.challengeVersionId,
          seed: options.seed,
          keptProvisionalSeed: options.keptProvisionalSeed,
          benchmarkBytes: options.benchmarkBytes,
          rounds: options.rounds,
          spreadAcrossHosts: options.spreadAcrossHosts,
          errorRate: options.errorRate,
          startedById: options.actorId,
        },
        select: { id: true },
      });
      await tx.finalEntrant.createMany({
        data: finalists.map((f) => ({
          evaluationId: evaluation.id,
          userId: f.userId,
          submissionId: f.submissionId,
          selectedExplicitly: f.selectedExplicitly,
          provisionalScore: f.score,
        })),
      });
      const sessions = await createSessions(tx, evaluation.id, targets, options);
      await appendAuditLog(tx, {
        actorId: options.actorId,
        action: 'final.start',
        subjectType: 'final-evaluation',
        subjectId: evaluation.id,
        payload: {
          challenge: options.challengeSlug,
          finalists: finalists.length,
          rounds: options.rounds,
          spreadAcrossHosts: options.spreadAcrossHosts,
          keptProvisionalSeed: options.keptProvisionalSeed,
          errorRate: options.errorRate,
          sessions: sessions.map((s) => ({ target: s.target, parts: s.parts })),
        },
      });
      return { evaluationId: evaluation.id, finalists: finalists.length, sessions };
    },
    { timeout: 60_000 },
  );
}

/**
 * The challenge locked for the transaction, and its finalists; refused while an evaluation runs
 * or when there are no finalists or too many.
 */
async function lockFinalists(tx: Tx, challengeSlug: string) {
  const challenge = await tx.challenge.findUnique({
    where: { slug: challengeSlug },
    select: { id: true },
  });
  if (!challenge) throw new NotFoundError(`No challenge ${challengeSlug}`);
  // Two organizers pressing start at once: the second waits here, then sees the first's.
  await tx.$queryRaw`SELECT id FROM "Challenge" WHERE id = ${challenge.id} FOR UPDATE`;
  const running = await tx.finalEvaluation.count({
    where: { challengeId: challenge.id, status: 'RUNNING' },
  });
  if (running > 0)
    throw new RefusedError(
      'A final evaluation is already running: cancel it first, or wait until it is done.',
      'evaluation-running',
    );
  const finalists = await listFinalists(tx, challengeSlug);
  if (finalists.length === 0)
    throw new RefusedError(
      'There is no finalist: nobody has an accepted, not disqualified submission.',
      'no-finalists',
    );
  if (finalists.length > MAX_FINALISTS)
    throw new RefusedError(
      `${finalists.length} finalists: one evaluation takes at most ${MAX_FINALISTS}.`,
      'too-many-finalists',
    );
  return { challenge, finalists };
}

/** One session per target, split into parts (at most one per round). */
async function createSessions(
  tx: Tx,
  evaluationId: string,
  targets: { id: string; name: string }[],
  options: CreateFinalEvaluationOptions,
): Promise<CreatedFinalEvaluation['sessions']> {
  const sessions: CreatedFinalEvaluation['sessions'] = [];
  for (const t of targets) {
    const parts = Math.max(1, Math.min(options.parts[t.name] ?? 1, options.rounds));
    const session = await tx.finalSession.create({
      data: {
        evaluationId: evaluationId,
        targetId: t.id,
        parts,
        roundsPlanned: options.rounds,
      },
      select: { id: true },
    });
    sessions.push({ sessionId: session.id, target: t.name, parts });
  }
  return sessions;
}
