// The challenge settings form: what the browser checks as the organizer types and the server
// action checks again, turning the form's text into the values lib/server/db/contest/update-contest-settings takes.
import { z } from 'zod';
import { MAX_BENCHMARK_BYTES, MIN_BENCHMARK_BYTES } from '../../../contracts/jobs';
import { formatByteSize, parseByteSize } from '../../../contracts/size';
import { slugSchema } from '../../../contracts/slug';
import { MAX_SUBMISSIONS_PER_HOUR } from '../db/contest/contest-settings-limits';

export const REASON_MAX = 500;

const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;

/** The form's fields, all text as a form sends them; empty means "not set" (the manifest's value). */
export const settingsFormSchema = z.strictObject({
  slug: slugSchema,
  deadline: z
    .string()
    .trim()
    .refine((t) => t === '' || DATETIME_LOCAL.test(t), 'Use YYYY-MM-DDTHH:MM (UTC)')
    .transform((t, ctx) => {
      if (t === '') return null;
      const date = new Date(`${t.length === 16 ? `${t}:00` : t}.000Z`);
      if (Number.isNaN(date.getTime())) {
        ctx.addIssue({ code: 'custom', message: `${t} is not a date` });
        return z.NEVER;
      }
      return date;
    }),
  submissionsPerHour: z
    .string()
    .trim()
    .refine(
      (t) => t === '' || (/^\d+$/.test(t) && +t >= 1 && +t <= MAX_SUBMISSIONS_PER_HOUR),
      `A whole number from 1 to ${MAX_SUBMISSIONS_PER_HOUR}, or empty for the manifest's`,
    )
    .transform((t) => (t === '' ? null : Number(t))),
  precision: z
    .string()
    .trim()
    .refine(
      (t) => t === '' || (/^\d*\.?\d+$/.test(t) && +t > 0 && +t <= 0.5),
      'A fraction above 0 and at most 0.5 (0.01 is ±1%), or empty for the manifest’s',
    )
    .transform((t) => (t === '' ? null : Number(t))),
  benchmarkSize: z
    .string()
    .trim()
    .transform((t, ctx) => {
      if (t === '') return null;
      const bytes = parseByteSize(t);
      if (bytes === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `"${t}" is not a size (e.g. 256MiB, 64MB, 1048576)`,
        });
        return z.NEVER;
      }
      if (bytes < MIN_BENCHMARK_BYTES || bytes > MAX_BENCHMARK_BYTES) {
        ctx.addIssue({
          code: 'custom',
          message: `From ${formatByteSize(MIN_BENCHMARK_BYTES)} to ${formatByteSize(MAX_BENCHMARK_BYTES)}`,
        });
        return z.NEVER;
      }
      return bytes;
    }),
  /** Write-only: empty keeps the current seed. */
  benchmarkSeed: z
    .string()
    .refine((t) => t === '' || t.length >= 8, 'At least 8 characters (or empty to keep it)')
    .refine((t) => t.length <= 4096, 'At most 4096 characters'),
  clearSeed: z.boolean(),
  /** What becomes of the recorded scores if the benchmark size or seed changes (empty: not said). */
  benchmarkScores: z
    .enum(['', 'rejudge', 'new-board'])
    .default('')
    .transform((t) => (t === '' ? undefined : t)),
  /** Judge every target even after one failed for the contestant (absent: unchanged). */
  judgeAllTargets: z.boolean().optional(),
  /** A newer submission supersedes the author's own still-queued one (absent: unchanged). */
  supersedeQueued: z.boolean().optional(),
  /** The profile stage runs cachegrind (absent: unchanged). */
  cachegrind: z.boolean().optional(),
  reason: z.string().trim().max(REASON_MAX, `At most ${REASON_MAX} characters`),
});

/** A reason an organizer must give (rejudge, disqualify, close, publish). */
export const reasonSchema = z
  .string()
  .trim()
  .min(1, 'Give a reason (it goes in the audit log)')
  .max(REASON_MAX, `At most ${REASON_MAX} characters`);

/** A submission or challenge id from a form: bounded, plain characters. */
export const idSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'not an id');
export { slugSchema };

/** Field → first message, for showing next to each field. */
export { fieldErrors as settingsFieldErrors } from '../../../contracts/zod-issues';
