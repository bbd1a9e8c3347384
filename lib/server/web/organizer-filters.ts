// The organizer's submission filters as they travel in the URL (?verdict=…&target=…): each field
// validated on its own, so one bad value is named and dropped instead of failing the whole page.
import { z } from 'zod';
import { firstIssue, slugSchema, TARGET_IDS, VERDICTS } from '../../../contracts';
import type { OrganizerSubmissionFilters } from '../db/submissions/list-submissions-for-organizer';

export const SUBMISSION_STATUSES = ['QUEUED', 'JUDGING', 'DONE', 'FAILED'] as const;
export const VERDICT_FILTERS = [...VERDICTS, 'DISQUALIFIED'] as const;

/** "2026-12-01" or "2026-12-01T14:05" (what a date or datetime-local input sends), read as UTC. */
const UTC_TIME = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(?::\d{2})?)?$/;

function utcTime(endOfDay: boolean) {
  return z
    .string()
    .regex(UTC_TIME, 'use YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC)')
    .transform((text, ctx) => {
      const [, day, time] = UTC_TIME.exec(text)!;
      const date = new Date(`${day}T${time ?? '00:00'}:00.000Z`);
      if (Number.isNaN(date.getTime())) {
        ctx.addIssue({ code: 'custom', message: `${text} is not a date` });
        return z.NEVER;
      }
      // "to 2026-12-01" means up to the end of that day.
      if (endOfDay && !time) date.setUTCDate(date.getUTCDate() + 1);
      return date;
    });
}

const fieldSchemas = {
  challenge: slugSchema,
  verdict: z.enum(VERDICT_FILTERS, 'not a verdict'),
  target: z.enum(TARGET_IDS, 'not a target'),
  contestant: z.string().max(100, 'at most 100 characters'),
  from: utcTime(false),
  to: utcTime(true),
  status: z.enum(SUBMISSION_STATUSES, 'not a status'),
  cursor: z.string().max(200, 'not a page cursor'),
};

export type FilterField = keyof typeof fieldSchemas;
const FILTER_FIELDS = Object.keys(fieldSchemas) as FilterField[];

export type SearchParams = Record<string, string | string[] | undefined>;

export interface ParsedOrganizerFilters {
  filters: OrganizerSubmissionFilters;
  cursor: string | undefined;
  /** The raw text of each field, to fill the form back in and to build page links. */
  values: Partial<Record<FilterField, string>>;
  /** "verdict: not a verdict", one per bad field (that field is ignored). */
  errors: string[];
}

export function parseOrganizerFilters(searchParams: SearchParams): ParsedOrganizerFilters {
  const values: Partial<Record<FilterField, string>> = {};
  const errors: string[] = [];
  const parsed: Record<string, unknown> = {};
  for (const field of FILTER_FIELDS) {
    const raw = searchParams[field];
    const text = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (!text) continue;
    values[field] = text.slice(0, 200);
    const result = fieldSchemas[field].safeParse(text);
    if (result.success) parsed[field] = result.data;
    else errors.push(`${field}: ${firstIssue(result.error)}`);
  }
  // Only the fields given: the page counts the keys to say whether anything is filtered.
  const filters: OrganizerSubmissionFilters = {
    ...(parsed.challenge ? { challengeSlug: parsed.challenge as string } : {}),
    ...(parsed.verdict ? { verdict: parsed.verdict as OrganizerSubmissionFilters['verdict'] } : {}),
    ...(parsed.target ? { target: parsed.target as OrganizerSubmissionFilters['target'] } : {}),
    ...(parsed.contestant ? { contestant: parsed.contestant as string } : {}),
    ...(parsed.from ? { from: parsed.from as Date } : {}),
    ...(parsed.to ? { to: parsed.to as Date } : {}),
    ...(parsed.status ? { status: parsed.status as OrganizerSubmissionFilters['status'] } : {}),
  };
  return { filters, cursor: parsed.cursor as string | undefined, values, errors };
}

/** The console's submissions URL for these filter values (and a page cursor). */
export function organizerSubmissionsHref(
  values: Partial<Record<FilterField, string>>,
  cursor?: string | null,
): string {
  const query = new URLSearchParams();
  for (const field of FILTER_FIELDS)
    if (field !== 'cursor' && values[field]) query.set(field, values[field]);
  if (cursor) query.set('cursor', cursor);
  const text = query.toString();
  return text ? `/organizer/submissions?${text}` : '/organizer/submissions';
}
