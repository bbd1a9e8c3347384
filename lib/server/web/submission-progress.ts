// The live state of a submission, per target: the judging row's status from PostgreSQL merged with
// the runner's latest progress event on its BullMQ job. Shared by the submission page (first
// render), GET /api/submissions/[id] (the polling fallback) and the events stream. Queue positions
// and time estimates come from the judging rows (lib/server/db/judgings/get-target-queue-figures.ts); a runner's
// own figures (detail: host-lock position, pairs, ETA) win when it sends them.
import 'server-only';
import {
  STAGES,
  judgingJobId,
  judgingProgressSchema,
  type JudgingProgress,
  type JudgingStatus,
  type Stage,
  type TargetId,
  type Verdict,
} from '../../../contracts';
import type { Db } from '../db/client';
import {
  getSubmissionStatus,
  type JudgingStatusRow,
  type SubmissionStatusRow,
} from '../db/submissions/get-submission-status';
import {
  countJudgingsAhead,
  getTargetQueueFigures,
  type TargetQueueFigures,
} from '../db/judgings/get-target-queue-figures';
import type { LiveStage, PairFigures } from './progress-words';
import type { QueueSet } from '../queue/producer';
import { withTimeout } from '../queue/producer';

/** What a browser is sent: no user ids, nothing but figures the page shows anyway. */
export interface TargetProgress {
  target: string;
  status: JudgingStatus;
  verdict: Verdict | null;
  /** Runner attempts this round: above 1 means a platform fault was retried. */
  attempts: number;
  /**
   * The judge's stage; 'queued' before a runner took it, 'waiting' for the host, 'starting' before
   * its first event, 'done', or 'cancelled' when the submission was settled without it.
   */
  stage: LiveStage;
  /** 0..1 within the stage, null when unknown. */
  stageFraction: number | null;
  /** 0..1 over the whole judging (each of the six stages counts the same). */
  overall: number;
  message: string | null;
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  /** Queued: judgings of the same target ahead of it (queued earlier, or being judged). */
  ahead: number | null;
  /** Waiting for the host: judgings ahead of it for the host lock (the runner says). */
  aheadForHost: number | null;
  /** Measuring: the pairs so far and the bounds (the runner says). */
  pairs: PairFigures | null;
  /** Estimated milliseconds to this target's verdict; null when nothing sensible is known. */
  etaMs: number | null;
}

/** The figures behind the queue positions and estimates, per target name (absent: none known). */
export interface QueueEstimates {
  ahead: ReadonlyMap<string, number>;
  figures: ReadonlyMap<string, TargetQueueFigures>;
  now: number;
}

const NO_ESTIMATES: QueueEstimates = { ahead: new Map(), figures: new Map(), now: 0 };

export interface SubmissionProgress {
  submissionId: string;
  status: 'QUEUED' | 'JUDGING' | 'DONE' | 'FAILED';
  verdict: Verdict | null;
  score: number | null;
  disqualified: boolean;
  /** Every judging has its final result: nothing more will change without a rejudge. */
  done: boolean;
  /** False when Redis could not be read: stages then come from the database alone. */
  live: boolean;
  targets: TargetProgress[];
}

/** 0..1 over the whole judging: the six working stages count the same; waiting counts nothing. */
function overallFraction(stage: Stage, fraction: number): number {
  const working = STAGES.filter((x) => x !== 'waiting');
  const index = working.indexOf(stage as (typeof working)[number]);
  return index < 0 ? 0 : Math.min(1, (index + fraction) / working.length);
}

/** Time to the verdict from how long this target's recent judgings took; null when unknown. */
function estimateMs(
  j: JudgingStatusRow,
  stage: LiveStage,
  ahead: number | null,
  aheadForHost: number | null,
  estimates: QueueEstimates,
): number | null {
  const f = estimates.figures.get(j.target);
  if (!f || f.typicalMs === null) return null;
  const parallel = Math.max(1, f.inProgress);
  if (stage === 'queued') return ((ahead ?? 0) / parallel + 1) * f.typicalMs;
  if (stage === 'waiting') return ((aheadForHost ?? 0) + 1) * f.typicalMs;
  if (!j.startedAt) return f.typicalMs;
  const left = f.typicalMs - (estimates.now - j.startedAt.getTime());
  // Longer than usual already: no honest figure.
  return left > 0 ? left : null;
}

/**
 * What the progress is made of: the status row without who may see it (the submission page has
 * both in its view already, and checked access with it).
 */
export type ProgressSource = Omit<SubmissionStatusRow, 'userId' | 'solutionsPublishedAt'>;

/** Merges the rows with the progress events (by judging id); a stale round's event is ignored. */
export function progressFromStatus(
  row: ProgressSource,
  events: ReadonlyMap<string, JudgingProgress>,
  live: boolean,
  estimates: QueueEstimates = NO_ESTIMATES,
): SubmissionProgress {
  const targets = row.judgings.map((j): TargetProgress => {
    const base = {
      target: j.target,
      status: j.status,
      verdict: j.verdict,
      attempts: j.attempts,
      speedup: j.speedup,
      ciLow: j.ciLow,
      ciHigh: j.ciHigh,
      ahead: null,
      aheadForHost: null,
      pairs: null,
      etaMs: null,
    };
    if (j.status === 'DONE')
      return { ...base, stage: 'done', stageFraction: 1, overall: 1, message: j.message };
    if (j.status === 'CANCELLED')
      return { ...base, stage: 'cancelled', stageFraction: null, overall: 0, message: j.message };
    const event = events.get(j.judgingId);
    if (event && event.round === j.round) {
      const d = event.detail;
      const aheadForHost = event.stage === 'waiting' ? (d?.aheadForHost ?? null) : null;
      const pairs =
        event.stage === 'measure' && d?.pairsDone !== undefined
          ? {
              done: d.pairsDone,
              min: d.pairsMin ?? null,
              max: d.pairsMax ?? null,
              discarded: d.pairsDiscarded ?? 0,
            }
          : null;
      return {
        ...base,
        // A runner is at work even if the claim has not reached the database yet.
        status: event.stage === 'waiting' ? 'WAITING' : 'JUDGING',
        stage: event.stage,
        stageFraction: event.fraction,
        overall: overallFraction(event.stage, event.fraction),
        // Before the fewest pairs an interval means nothing: the pair count says it all.
        message:
          pairs && pairs.min !== null && pairs.done < pairs.min ? null : event.message || null,
        aheadForHost,
        pairs,
        etaMs: d?.etaMs ?? estimateMs(j, event.stage, null, aheadForHost, estimates),
      };
    }
    const stage: LiveStage =
      j.status === 'WAITING' ? 'waiting' : j.status === 'JUDGING' ? 'starting' : 'queued';
    const ahead = stage === 'queued' ? (estimates.ahead.get(j.judgingId) ?? null) : null;
    return {
      ...base,
      stage,
      stageFraction: null,
      overall: 0,
      message: null,
      ahead,
      etaMs: estimateMs(j, stage, ahead, null, estimates),
    };
  });
  return {
    submissionId: row.submissionId,
    status: row.status,
    verdict: row.verdict,
    score: row.score,
    disqualified: row.disqualified,
    // Settled, not only judged: the overall verdict and score are written with the last judging.
    done:
      (row.status === 'DONE' || row.status === 'FAILED') &&
      row.judgings.every((j) => j.status === 'DONE' || j.status === 'CANCELLED'),
    live,
    targets,
  };
}

/** Typical durations change slowly: read them at most this often per target per process. */
const FIGURES_TTL_MS = 10_000;
const figuresCache = new Map<string, { at: number; figures: TargetQueueFigures }>();

async function queueFigures(db: Db, target: string, now: number): Promise<TargetQueueFigures> {
  const hit = figuresCache.get(target);
  if (hit && now - hit.at < FIGURES_TTL_MS) return hit.figures;
  const figures = await getTargetQueueFigures(db, target);
  figuresCache.set(target, { at: now, figures });
  return figures;
}

/** Queue positions of the queued judgings and the figures of every open judging's target. */
export async function readQueueEstimates(
  db: Db,
  row: ProgressSource,
  now = Date.now(),
): Promise<QueueEstimates> {
  const open = row.judgings.filter((j) => j.status !== 'DONE' && j.status !== 'CANCELLED');
  const ahead = new Map<string, number>();
  const figures = new Map<string, TargetQueueFigures>();
  await Promise.all([
    ...open
      .filter((j) => j.status === 'QUEUED')
      .map(async (j) => ahead.set(j.judgingId, await countJudgingsAhead(db, j))),
    ...[...new Set(open.map((j) => j.target))].map(async (t) =>
      figures.set(t, await queueFigures(db, t, now)),
    ),
  ]);
  return { ahead, figures, now };
}

const REDIS_TIMEOUT_MS = 1_500;

/** The latest progress event of each unfinished judging's job this round; {live: false} if Redis failed. */
async function readJobProgress(
  queues: Pick<QueueSet, 'judgeQueue'>,
  row: ProgressSource,
): Promise<{ events: Map<string, JudgingProgress>; live: boolean }> {
  const events = new Map<string, JudgingProgress>();
  const open = row.judgings.filter((j) => j.status !== 'DONE' && j.status !== 'CANCELLED');
  try {
    await Promise.all(
      open.map(async (j) => {
        const job = await withTimeout(
          queues.judgeQueue(j.target as TargetId).getJob(judgingJobId(j.judgingId, j.round)),
          REDIS_TIMEOUT_MS,
          'reading judging progress',
        );
        // A runner's progress is untrusted as far as this process knows: parse it like any input.
        const parsed = judgingProgressSchema.safeParse(job?.progress);
        if (parsed.success && parsed.data.judgingId === j.judgingId)
          events.set(j.judgingId, parsed.data);
      }),
    );
    return { events, live: true };
  } catch {
    return { events, live: false };
  }
}

export interface ProgressRead {
  access: { userId: string; solutionsPublishedAt: Date | null };
  progress: SubmissionProgress;
}

export async function readSubmissionProgress(
  db: Db,
  queues: Pick<QueueSet, 'judgeQueue'>,
  submissionId: string,
): Promise<ProgressRead | null> {
  const row = await getSubmissionStatus(db, submissionId);
  if (!row) return null;
  return {
    access: { userId: row.userId, solutionsPublishedAt: row.solutionsPublishedAt },
    progress: await readProgressOf(db, queues, row),
  };
}

/** The live progress of a submission whose rows were read already (the submission page's view). */
export async function readProgressOf(
  db: Db,
  queues: Pick<QueueSet, 'judgeQueue'>,
  row: ProgressSource,
): Promise<SubmissionProgress> {
  const [{ events, live }, estimates] = await Promise.all([
    readJobProgress(queues, row),
    readQueueEstimates(db, row),
  ]);
  return progressFromStatus(row, events, live, estimates);
}
