// The live state of a running final evaluation, per target: the session rows (the checkpoint the
// scorer records round by round) merged with the runners' latest progress on each part's BullMQ job
// (stage, rounds done, the runner's own time-left estimate), as lib/server/web/submission-progress.ts does
// for judgings. Redis failing leaves the database's figures.
import 'server-only';
import {
  finalSessionJobId,
  finalSessionProgressSchema,
  type FinalSessionProgress,
} from '../../../contracts/final';
import type { TargetId } from '../../../contracts';
import type { Db } from '../db/client';
import {
  listEvaluationSessions,
  type EvaluationSessionRow,
} from '../db/final/list-evaluation-sessions';
import { withTimeout, type QueueSet } from '../queue/producer';
import { paceEstimateMs } from './final-words';

export interface SessionLive {
  target: string;
  status: EvaluationSessionRow['status'];
  stage: FinalSessionProgress['stage'] | 'queued' | 'finished';
  roundsDone: number;
  roundsPlanned: number;
  /** Estimated time left: the slowest part's runner estimate, else the session's own pace. */
  etaMs: number | null;
  /** The runners' latest words ("round 4 of 20"), one per part that sent any. */
  messages: string[];
}

export interface EvaluationLive {
  sessions: SessionLive[];
  /** False when Redis could not be read: the figures come from the database alone. */
  live: boolean;
}

const REDIS_TIMEOUT_MS = 1_500;

async function readPartProgress(
  queues: Pick<QueueSet, 'judgeQueue'>,
  session: EvaluationSessionRow,
): Promise<FinalSessionProgress[]> {
  const parts = Array.from({ length: Math.max(1, session.parts) }, (_, part) => part);
  const read = await Promise.all(
    parts.map(async (part) => {
      const job = await withTimeout(
        queues
          .judgeQueue(session.target as TargetId)
          .getJob(finalSessionJobId(session.sessionId, part)),
        REDIS_TIMEOUT_MS,
        'reading final session progress',
      );
      // A runner's progress is untrusted as far as this process knows: parse it like any input.
      const parsed = finalSessionProgressSchema.safeParse(job?.progress);
      return parsed.success && parsed.data.sessionId === session.sessionId ? parsed.data : null;
    }),
  );
  return read.filter((p): p is FinalSessionProgress => p !== null);
}

/** The stage from the session row alone (no job progress could be read). */
function sessionStage(session: EvaluationSessionRow, roundsDone: number): SessionLive['stage'] {
  if (session.status === 'QUEUED') return 'queued';
  if (session.status === 'WAITING') return 'waiting';
  return roundsDone > 0 ? 'rounds' : 'build';
}

/** One session's figures: the database's checkpoint, overtaken by fresher job progress. */
export function sessionLive(
  session: EvaluationSessionRow,
  progress: readonly FinalSessionProgress[],
  now: number,
): SessionLive {
  const finished = session.status === 'DONE' || session.status === 'CANCELLED';
  const fromJobs = progress.reduce((sum, p) => sum + p.roundsDone, 0);
  const roundsDone = Math.min(session.roundsPlanned, Math.max(session.roundsDone, fromJobs));
  const runnerEtas = progress.map((p) => p.etaMs).filter((x): x is number => x !== null);
  const stage: SessionLive['stage'] = finished
    ? 'finished'
    : progress.some((p) => p.stage === 'rounds')
      ? 'rounds'
      : progress.some((p) => p.stage === 'build')
        ? 'build'
        : progress.some((p) => p.stage === 'waiting')
          ? 'waiting'
          : sessionStage(session, roundsDone);
  return {
    target: session.target,
    status: session.status,
    stage,
    roundsDone,
    roundsPlanned: session.roundsPlanned,
    etaMs: finished
      ? 0
      : runnerEtas.length > 0
        ? Math.max(...runnerEtas)
        : paceEstimateMs({ ...session, roundsDone }, now),
    messages: progress.map((p) => p.message).filter((m) => m !== ''),
  };
}

export async function readEvaluationProgress(
  db: Db,
  queues: Pick<QueueSet, 'judgeQueue'>,
  evaluationId: string,
  now = Date.now(),
): Promise<EvaluationLive> {
  const sessions = await listEvaluationSessions(db, evaluationId);
  let live = true;
  const progress = await Promise.all(
    sessions.map((s) =>
      s.status === 'DONE' || s.status === 'CANCELLED'
        ? Promise.resolve([])
        : readPartProgress(queues, s).catch(() => {
            live = false;
            return [];
          }),
    ),
  );
  return {
    sessions: sessions.map((s, i) => sessionLive(s, progress[i] ?? [], now)),
    live,
  };
}
