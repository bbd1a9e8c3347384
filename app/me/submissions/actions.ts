'use server';
// A contestant's final selection: which accepted submission counts for the final evaluation, or back
// to the default (their best provisional score). Through safeAction (signed in, input parsed); the
// data functions refuse what is not allowed (not theirs, not accepted, after the deadline) in words.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { db } from '../../../lib/server/db/client';
import { clearFinalSelection } from '../../../lib/server/db/final/clear-final-selection';
import { NotFoundError, RefusedError } from '../../../lib/server/db/errors';
import { selectFinalSubmission } from '../../../lib/server/db/final/select-final-submission';
import { idSchema, slugSchema } from '../../../lib/server/web/organizer-settings-form';
import { ActionError, safeAction } from '../../../lib/server/web/safe-action';

export interface ChoiceOutcome {
  message: string;
}

/** The data layer's refusals are the contestant's to read; anything else is a server failure. */
async function refusalsInWords<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof RefusedError)
      throw new ActionError(error.message);
    throw error;
  }
}

function refresh(): void {
  revalidatePath('/me/submissions');
  revalidatePath('/submissions/[id]', 'page');
}

export const selectFinalAction = safeAction(
  z.strictObject({ submissionId: idSchema }),
  async (input, user): Promise<ChoiceOutcome> => {
    await refusalsInWords(() =>
      selectFinalSubmission(db(), { userId: user.id, submissionId: input.submissionId }),
    );
    refresh();
    return { message: 'This submission now counts for the final evaluation.' };
  },
);

export const clearFinalAction = safeAction(
  z.strictObject({ slug: slugSchema }),
  async (input, user): Promise<ChoiceOutcome> => {
    await refusalsInWords(() =>
      clearFinalSelection(db(), { userId: user.id, challengeSlug: input.slug }),
    );
    refresh();
    return { message: 'Your best provisional score counts for the final evaluation again.' };
  },
);
