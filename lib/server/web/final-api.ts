// What the final evaluation's API routes take (zod, each field's limits named in its error) and
// who may call them: the CLI's `perfjudge final …`, `select` and `repeat` commands speak this.
import { z } from 'zod';
import { MAX_FINAL_ROUNDS, MIN_FINAL_ROUNDS, slugSchema, targetIdSchema } from '../../../contracts';
import { MAX_REPEATS, MIN_REPEATS } from '../db/judgings/create-repeat-judgings';
import type { FinalEntrantView, FinalEvaluationView } from '../db/final/get-final-evaluation';
import { HttpError } from './api-errors';
import { submissionIdSchema } from './submission-id';
import type { SessionUser } from './session';

/** Every body here is a few small fields. */
export const MAX_FINAL_BODY_BYTES = 16 * 1024;

const reasonSchema = z
  .string()
  .trim()
  .min(3, 'give a reason (at least 3 characters): the audit log keeps it')
  .max(500, 'the reason is longer than 500 characters');

export const startFinalInputSchema = z.strictObject({
  keepProvisionalSeed: z.boolean().optional(),
  rounds: z
    .number()
    .int('rounds must be a whole number')
    .min(MIN_FINAL_ROUNDS, `at least ${MIN_FINAL_ROUNDS} rounds`)
    .max(MAX_FINAL_ROUNDS, `at most ${MAX_FINAL_ROUNDS} rounds`)
    .optional(),
  spreadAcrossHosts: z.boolean().optional(),
  errorRate: z
    .number()
    .gt(0, 'the error rate must be above 0')
    .max(0.2, 'the error rate must be at most 0.2')
    .optional(),
});

export const cancelFinalInputSchema = z.strictObject({ reason: reasonSchema });

export const finalSelectionInputSchema = z.strictObject({ submissionId: submissionIdSchema });

export const repeatInputSchema = z.strictObject({
  times: z
    .number()
    .int('times must be a whole number')
    .min(MIN_REPEATS, `at least ${MIN_REPEATS} times`)
    .max(MAX_REPEATS, `at most ${MAX_REPEATS} times`),
  target: targetIdSchema.optional(),
  reason: reasonSchema,
});

export const challengeSlugParamSchema = slugSchema;

export function requireApiUser(user: SessionUser | null): SessionUser {
  if (!user)
    throw new HttpError(
      'unauthorized',
      'Sign in or send a valid API token: Authorization: Bearer <token>',
    );
  return user;
}

export function requireApiOrganizer(user: SessionUser | null): SessionUser {
  const u = requireApiUser(user);
  if (u.needsTwoFactor)
    throw new HttpError('forbidden', 'Turn on two-factor sign-in on your account page first');
  if (u.role !== 'ORGANIZER') throw new HttpError('forbidden', 'Only organizers may do this');
  return u;
}

/**
 * What the public API shows of an evaluation: what the public leaderboard and its exports show —
 * names, places and figures; no user ids, and the submission only once solutions are published.
 */
export function publicFinalEvaluation(
  view: FinalEvaluationView,
  options: { solutionsPublished: boolean },
): Omit<FinalEvaluationView, 'entrants'> & {
  entrants: (Omit<FinalEntrantView, 'userId' | 'submissionId'> & { submissionId?: string })[];
} {
  return {
    ...view,
    entrants: view.entrants.map(({ userId, submissionId, ...rest }) => {
      void userId;
      return { ...rest, submissionId: options.solutionsPublished ? submissionId : undefined };
    }),
  };
}
