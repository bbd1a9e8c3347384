// The console's final-evaluation forms (start, rejudge N times): the browser checks them as the
// organizer confirms and the server action checks them again, turning the form's text into the
// values lib/server/submit/final-evaluation.ts takes.
import { z } from 'zod';
import { MAX_FINAL_ROUNDS, MIN_FINAL_ROUNDS } from '../../../contracts/final';
import { targetIdSchema } from '../../../contracts/manifest';
import { slugSchema } from '../../../contracts/slug';
import { idSchema, reasonSchema } from './organizer-settings-form';

export { MAX_FINAL_ROUNDS, MIN_FINAL_ROUNDS };

/** The error rates an organizer may state: above 0, at most 20% (beyond that a place means little). */
const MIN_ERROR_RATE = 0.001;
const MAX_ERROR_RATE = 0.2;

export const MIN_REPEATS = 2;
export const MAX_REPEATS = 20;

/** A whole number from a form's text, within bounds, with the bounds in the message. */
function wholeNumber(min: number, max: number, what: string) {
  return z
    .string()
    .trim()
    .refine(
      (t) => /^\d+$/.test(t) && +t >= min && +t <= max,
      `${what}: a whole number from ${min} to ${max}`,
    )
    .transform(Number);
}

export const startFinalFormSchema = z.strictObject({
  slug: slugSchema,
  rounds: wholeNumber(MIN_FINAL_ROUNDS, MAX_FINAL_ROUNDS, 'Rounds'),
  /** A fraction (0.05) or a percentage ("5%"). */
  errorRate: z
    .string()
    .trim()
    .transform((t, ctx) => {
      const match = /^(\d*\.?\d+)\s*(%?)$/.exec(t);
      const value = match ? Number(match[1]) / (match[2] ? 100 : 1) : NaN;
      if (!(value >= MIN_ERROR_RATE && value <= MAX_ERROR_RATE)) {
        ctx.addIssue({
          code: 'custom',
          message: `Error rate: from ${MIN_ERROR_RATE} to ${MAX_ERROR_RATE} (0.05 or 5%)`,
        });
        return z.NEVER;
      }
      return value;
    }),
  keepProvisionalSeed: z.boolean(),
  spreadAcrossHosts: z.boolean(),
});
export type StartFinalFormInput = z.input<typeof startFinalFormSchema>;

export const repeatFormSchema = z.strictObject({
  submissionId: idSchema,
  times: wholeNumber(MIN_REPEATS, MAX_REPEATS, 'Times'),
  /** Empty: every target the submission was judged on. */
  target: z.union([z.literal(''), targetIdSchema]),
  reason: reasonSchema,
});
export type RepeatFormInput = z.input<typeof repeatFormSchema>;

export const evaluationIdSchema = idSchema;
