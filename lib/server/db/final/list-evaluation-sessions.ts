// A final evaluation's sessions as the console's live progress needs them: the ids and parts that
// name their jobs (contracts/final.ts finalSessionJobId), with the checkpoint's figures.
import 'server-only';
import type { JudgingStatus } from '../../../../contracts';
import type { Db } from '../client';

export interface EvaluationSessionRow {
  sessionId: string;
  target: string;
  status: JudgingStatus;
  parts: number;
  roundsDone: number;
  roundsPlanned: number;
  startedAt: Date | null;
}

export async function listEvaluationSessions(
  db: Db,
  evaluationId: string,
): Promise<EvaluationSessionRow[]> {
  const rows = await db.finalSession.findMany({
    where: { evaluationId },
    orderBy: { target: { name: 'asc' } },
    select: {
      id: true,
      status: true,
      parts: true,
      roundsDone: true,
      roundsPlanned: true,
      startedAt: true,
      target: { select: { name: true } },
    },
  });
  return rows.map((r) => ({
    sessionId: r.id,
    target: r.target.name,
    status: r.status,
    parts: r.parts,
    roundsDone: r.roundsDone,
    roundsPlanned: r.roundsPlanned,
    startedAt: r.startedAt,
  }));
}
