// Everything the submission page shows, for one viewer: the header, and per target the judging's
// state and its typed result. Returns null when the submission does not exist OR the viewer may not
// see it, so a page or route answers 404 either way and never confirms that an id exists.
//
// Who sees it: the author and the organizers always; everyone else only once the organizers have
// published the solutions: the same rule as the patch (lib/web/patch-access.ts), because before
// publication a result (its speedup, its failing tests, its build log) tells about the patch.
import 'server-only';
import {
  judgingResultSchema,
  type JudgingResult,
  type JudgingStatus,
  type Verdict,
} from '../../contracts';
import { canViewPatch } from '../web/patch-access';
import type { Db } from './client';

export interface SubmissionViewer {
  id: string;
  role: 'CONTESTANT' | 'ORGANIZER';
}

export interface JudgingView {
  judgingId: string;
  target: string;
  status: JudgingStatus;
  round: number;
  attempts: number;
  verdict: Verdict | null;
  message: string | null;
  speedup: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  devMode: boolean;
  emulated: boolean;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** The recorded result, parsed by the contract; null before it arrives. */
  result: JudgingResult | null;
  /** A stored result the contract no longer accepts (older schema): shown as such, not thrown. */
  resultUnreadable: boolean;
}

export interface SubmissionView {
  id: string;
  challenge: { slug: string; title: string; version: number };
  author: { name: string };
  /** The viewer wrote it (their own page reads "you"). */
  isAuthor: boolean;
  createdAt: Date;
  judgedAt: Date | null;
  status: 'QUEUED' | 'JUDGING' | 'DONE' | 'FAILED';
  verdict: Verdict | null;
  score: number | null;
  disqualified: boolean;
  disqualifiedReason: string | null;
  patchBytes: number;
  solutionsPublished: boolean;
  judgings: JudgingView[];
}

export interface GetSubmissionViewOptions {
  submissionId: string;
  viewer: SubmissionViewer | null;
}

export async function getSubmissionView(
  db: Db,
  options: GetSubmissionViewOptions,
): Promise<SubmissionView | null> {
  const row = await db.submission.findUnique({
    where: { id: options.submissionId },
    select: {
      id: true,
      userId: true,
      createdAt: true,
      judgedAt: true,
      status: true,
      verdict: true,
      score: true,
      disqualified: true,
      disqualifiedReason: true,
      patchBytes: true,
      user: { select: { name: true } },
      challenge: { select: { slug: true, title: true, solutionsPublishedAt: true } },
      challengeVersion: { select: { version: true } },
      judgings: {
        orderBy: { target: { name: 'asc' } },
        select: {
          id: true,
          status: true,
          round: true,
          attempts: true,
          verdict: true,
          message: true,
          speedup: true,
          ciLow: true,
          ciHigh: true,
          devMode: true,
          emulated: true,
          queuedAt: true,
          startedAt: true,
          finishedAt: true,
          result: true,
          target: { select: { name: true } },
        },
      },
    },
  });
  if (!row) return null;
  const subject = { userId: row.userId, solutionsPublishedAt: row.challenge.solutionsPublishedAt };
  if (!canViewPatch(options.viewer, subject)) return null;
  return {
    id: row.id,
    challenge: {
      slug: row.challenge.slug,
      title: row.challenge.title,
      version: row.challengeVersion.version,
    },
    author: { name: row.user.name },
    isAuthor: options.viewer?.id === row.userId,
    createdAt: row.createdAt,
    judgedAt: row.judgedAt,
    status: row.status,
    verdict: row.verdict,
    score: row.score,
    disqualified: row.disqualified,
    disqualifiedReason: row.disqualifiedReason,
    patchBytes: row.patchBytes,
    solutionsPublished: row.challenge.solutionsPublishedAt !== null,
    judgings: row.judgings.map((j) => {
      const parsed = j.result === null ? null : judgingResultSchema.safeParse(j.result);
      return {
        judgingId: j.id,
        target: j.target.name,
        status: j.status,
        round: j.round,
        attempts: j.attempts,
        verdict: j.verdict,
        message: j.message,
        speedup: j.speedup,
        ciLow: j.ciLow,
        ciHigh: j.ciHigh,
        devMode: j.devMode,
        emulated: j.emulated,
        queuedAt: j.queuedAt,
        startedAt: j.startedAt,
        finishedAt: j.finishedAt,
        result: parsed?.success ? parsed.data : null,
        resultUnreadable: parsed !== null && !parsed.success,
      };
    }),
  };
}
