// The organizer console's list of every submission: filtered (challenge, verdict, target,
// contestant, time, status) and paginated by a keyset cursor, so page 400 of 20,000 costs what page 1 does.
import { z } from 'zod';
import type { TargetId, Verdict } from '../../../../contracts';
import type { Db } from '../client';
import type { Prisma } from '../generated/prisma/client';
import { SUBMISSION_STATE_SELECT } from './submission-state-select';

export interface OrganizerSubmissionFilters {
  challengeSlug?: string;
  /** A verdict, or DISQUALIFIED; with a target, the verdict of that target's judging. */
  verdict?: Verdict | 'DISQUALIFIED';
  target?: TargetId;
  /** Part of the contestant's name or e-mail, any case. */
  contestant?: string;
  from?: Date;
  to?: Date;
  status?: 'QUEUED' | 'JUDGING' | 'DONE' | 'FAILED';
}

export interface ListSubmissionsForOrganizerOptions {
  filters: OrganizerSubmissionFilters;
  /** From the previous page's nextCursor. */
  cursor?: string;
  limit?: number;
}

/** What identifies a submission to an organizer: the list's row and the diff view's header. */
export interface OrganizerSubmissionSummary {
  id: string;
  createdAt: Date;
  contestant: { name: string; email: string };
  challengeSlug: string;
  status: 'QUEUED' | 'JUDGING' | 'DONE' | 'FAILED';
  verdict: Verdict | null;
  score: number | null;
  disqualified: boolean;
  patchBytes: number;
}

/** Prisma `select` for toOrganizerSubmissionSummary. */
export const ORGANIZER_SUBMISSION_SELECT = {
  ...SUBMISSION_STATE_SELECT,
  patchBytes: true,
  user: { select: { name: true, email: true } },
  challenge: { select: { slug: true } },
} as const satisfies Prisma.SubmissionSelect;

export function toOrganizerSubmissionSummary(
  row: Prisma.SubmissionGetPayload<{ select: typeof ORGANIZER_SUBMISSION_SELECT }>,
): OrganizerSubmissionSummary {
  return {
    id: row.id,
    createdAt: row.createdAt,
    contestant: row.user,
    challengeSlug: row.challenge.slug,
    status: row.status,
    verdict: row.verdict,
    score: row.score,
    disqualified: row.disqualified,
    patchBytes: row.patchBytes,
  };
}

export interface OrganizerSubmissionRow extends OrganizerSubmissionSummary {
  judgings: { target: string; status: string; verdict: Verdict | null; speedup: number | null }[];
  /** Targets whose judging's plausibility check flagged the solution as faster than possible. */
  plausibilityFlagged: string[];
}

export interface OrganizerSubmissionPage {
  rows: OrganizerSubmissionRow[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** A cursor is the last row's (createdAt, id), so rows made while paging do not shift the pages. */
const cursorSchema = z.object({ t: z.iso.datetime(), id: z.string().min(1).max(64) });

function encodeSubmissionCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify({ t: row.createdAt.toISOString(), id: row.id })).toString(
    'base64url',
  );
}

/** Undefined for anything that is not a cursor this module made (a hand-edited URL starts over). */
function decodeSubmissionCursor(cursor: string): { createdAt: Date; id: string } | undefined {
  try {
    const parsed = cursorSchema.safeParse(
      JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')),
    );
    return parsed.success ? { createdAt: new Date(parsed.data.t), id: parsed.data.id } : undefined;
  } catch {
    return undefined;
  }
}

const ORGANIZER_PAGE_SIZE = 50;

export async function listSubmissionsForOrganizer(
  db: Db,
  options: ListSubmissionsForOrganizerOptions,
): Promise<OrganizerSubmissionPage> {
  const { filters } = options;
  const limit = Math.min(Math.max(options.limit ?? ORGANIZER_PAGE_SIZE, 1), 200);
  const and: Prisma.SubmissionWhereInput[] = [];
  if (filters.challengeSlug) and.push({ challenge: { slug: filters.challengeSlug } });
  if (filters.status) and.push({ status: filters.status });
  if (filters.from) and.push({ createdAt: { gte: filters.from } });
  if (filters.to) and.push({ createdAt: { lt: filters.to } });
  if (filters.contestant)
    and.push({
      user: {
        OR: [
          { name: { contains: filters.contestant, mode: 'insensitive' } },
          { email: { contains: filters.contestant, mode: 'insensitive' } },
        ],
      },
    });
  const verdict = filters.verdict;
  if (verdict === 'DISQUALIFIED') and.push({ disqualified: true });
  if (filters.target)
    and.push({
      judgings: {
        some: {
          target: { name: filters.target },
          verdict: verdict === 'DISQUALIFIED' ? undefined : verdict,
        },
      },
    });
  else if (verdict && verdict !== 'DISQUALIFIED') and.push({ verdict });

  const after = options.cursor ? decodeSubmissionCursor(options.cursor) : undefined;
  if (after)
    and.push({
      // Redundant with the OR, but it gives the (createdAt, id) index a place to start: without it
      // a deep page scans from the newest row down.
      createdAt: { lte: after.createdAt },
      OR: [
        { createdAt: { lt: after.createdAt } },
        { createdAt: after.createdAt, id: { lt: after.id } },
      ],
    });

  const rows = await db.submission.findMany({
    where: { AND: and },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    // One more than asked tells whether there is a next page without counting.
    take: limit + 1,
    select: {
      ...ORGANIZER_SUBMISSION_SELECT,
      judgings: {
        select: {
          status: true,
          verdict: true,
          speedup: true,
          target: { select: { name: true } },
        },
      },
    },
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const flagged = await implausibleJudgings(
    db,
    page.map((r) => r.id),
  );
  return {
    rows: page.map((r) => ({
      ...toOrganizerSubmissionSummary(r),
      judgings: r.judgings
        .map((j) => ({
          target: j.target.name,
          status: j.status,
          verdict: j.verdict,
          speedup: j.speedup,
        }))
        .sort((a, b) => a.target.localeCompare(b.target)),
      plausibilityFlagged: flagged.get(r.id) ?? [],
    })),
    nextCursor: rows.length > limit && last ? encodeSubmissionCursor(last) : null,
  };
}

/**
 * Submission id → targets whose result says the plausibility check flagged it. Read from the
 * stored result (a JSON path filter, so only the flagged rows come back) rather than a column:
 * the flag lives in the result and nothing else needs it.
 */
async function implausibleJudgings(
  db: Db,
  submissionIds: string[],
): Promise<Map<string, string[]>> {
  const byId = new Map<string, string[]>();
  if (!submissionIds.length) return byId;
  const rows = await db.judging.findMany({
    where: {
      submissionId: { in: submissionIds },
      result: { path: ['stages', 'measure', 'plausibility', 'flagged'], equals: true },
    },
    select: { submissionId: true, target: { select: { name: true } } },
  });
  for (const row of rows)
    byId.set(row.submissionId, [...(byId.get(row.submissionId) ?? []), row.target.name].sort());
  return byId;
}
