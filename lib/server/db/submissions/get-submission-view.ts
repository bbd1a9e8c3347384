// Everything the submission page shows, for one viewer: the header, and per target the judging's
// state and its typed result. Returns null when the submission does not exist OR the viewer may not
// see it, so a page or route answers 404 either way and never confirms that an id exists.
//
// Who sees it: the author and the organizers always; everyone else only once the organizers have
// published the solutions: the same rule as the patch (lib/core/access/patch-access.ts), because before
// publication a result (its speedup, its failing tests, its build log) tells about the patch.
import 'server-only';
import { judgingResultSchema, type JudgingResult, type Verdict } from '../../../../contracts';
import { canViewPatch } from '../../../core/access/patch-access';
import type { Db } from '../client';
import {
  JUDGING_STATUS_SELECT,
  toJudgingStatusRow,
  type JudgingStatusRow,
} from './get-submission-status';

/**
 * Parsed results by judging id and last change. A finished judging's result never changes without
 * its row changing (a rejudge bumps updatedAt), and reading and parsing two 30 KiB results was most
 * of the submission page's time: a page reload now costs a small query. A Map kept in insertion
 * order is the least-recently-used list; 200 results are a few tens of MiB at most.
 */
const RESULT_CACHE_SIZE = 200;
const resultCache = new Map<string, { result: JudgingResult | null; unreadable: boolean }>();

function rememberResult(key: string, value: { result: JudgingResult | null; unreadable: boolean }) {
  resultCache.delete(key);
  resultCache.set(key, value);
  for (const oldest of resultCache.keys()) {
    if (resultCache.size <= RESULT_CACHE_SIZE) break;
    resultCache.delete(oldest);
  }
}

function parseResult(json: unknown): { result: JudgingResult | null; unreadable: boolean } {
  if (json === null || json === undefined) return { result: null, unreadable: false };
  const parsed = judgingResultSchema.safeParse(json);
  return parsed.success
    ? { result: parsed.data, unreadable: false }
    : { result: null, unreadable: true };
}

/** The results of these judgings, from the cache when their row has not changed since. */
async function judgingResults(
  db: Db,
  judgings: { id: string; updatedAt: Date }[],
): Promise<Map<string, { result: JudgingResult | null; unreadable: boolean }>> {
  const key = (j: { id: string; updatedAt: Date }) => `${j.id}:${j.updatedAt.getTime()}`;
  const found = new Map<string, { result: JudgingResult | null; unreadable: boolean }>();
  const missing: { id: string; updatedAt: Date }[] = [];
  for (const j of judgings) {
    const hit = resultCache.get(key(j));
    if (hit) {
      rememberResult(key(j), hit);
      found.set(j.id, hit);
    } else missing.push(j);
  }
  if (missing.length === 0) return found;
  const rows = await db.judging.findMany({
    where: { id: { in: missing.map((j) => j.id) } },
    select: { id: true, updatedAt: true, result: true },
  });
  for (const row of rows) {
    const value = parseResult(row.result);
    found.set(row.id, value);
    // Keyed by the version read now: a row changed in between is cached under its new key.
    if (row.result !== null) rememberResult(key(row), value);
  }
  return found;
}

export interface SubmissionViewer {
  id: string;
  role: 'CONTESTANT' | 'ORGANIZER';
}

export interface JudgingView extends JudgingStatusRow {
  devMode: boolean;
  emulated: boolean;
  finishedAt: Date | null;
  /** The recorded result, parsed by the contract; null before it arrives. */
  result: JudgingResult | null;
  /** A stored result the contract no longer accepts (older schema): shown as such, not thrown. */
  resultUnreadable: boolean;
}

export interface SubmissionView {
  id: string;
  challenge: { id: string; slug: string; title: string; version: number };
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
      challenge: { select: { id: true, slug: true, title: true, solutionsPublishedAt: true } },
      challengeVersion: { select: { version: true } },
      judgings: {
        orderBy: { target: { name: 'asc' } },
        select: {
          ...JUDGING_STATUS_SELECT,
          devMode: true,
          emulated: true,
          finishedAt: true,
          updatedAt: true,
        },
      },
    },
  });
  if (!row) return null;
  const subject = { userId: row.userId, solutionsPublishedAt: row.challenge.solutionsPublishedAt };
  if (!canViewPatch(options.viewer, subject)) return null;
  const results = await judgingResults(db, row.judgings);
  return {
    id: row.id,
    challenge: {
      id: row.challenge.id,
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
      const parsed = results.get(j.id) ?? { result: null, unreadable: false };
      return {
        ...toJudgingStatusRow(j),
        devMode: j.devMode,
        emulated: j.emulated,
        finishedAt: j.finishedAt,
        result: parsed.result,
        resultUnreadable: parsed.unreadable,
      };
    }),
  };
}
