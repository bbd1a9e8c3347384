'use server';
// A contestant's final selection: which accepted submission counts for the final evaluation, or back
// to the default (their best provisional score). Through safeAction (signed in, input parsed); the
// data functions refuse what is not allowed (not theirs, not accepted, after the deadline) in words.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { db } from '../../../lib/server/db/client';
import { clearFinalSelection } from '../../../lib/server/db/final/clear-final-selection';
import { selectFinalSubmission } from '../../../lib/server/db/final/select-final-submission';
import { idSchema, slugSchema } from '../../../lib/server/web/organizer-settings-form';
import { safeAction } from '../../../lib/server/web/safe-action';

export interface ChoiceOutcome {
  message: string;
}

function refresh(): void {
  revalidatePath('/me/submissions');
  revalidatePath('/submissions/[id]', 'page');
}

export const selectFinalAction = safeAction(
  z.strictObject({ submissionId: idSchema }),
  async (input, user): Promise<ChoiceOutcome> => {
    await selectFinalSubmission(db(), { userId: user.id, submissionId: input.submissionId });
    refresh();
    return { message: 'This submission now counts for the final evaluation.' };
  },
);

export const clearFinalAction = safeAction(
  z.strictObject({ slug: slugSchema }),
  async (input, user): Promise<ChoiceOutcome> => {
    await clearFinalSelection(db(), { userId: user.id, challengeSlug: input.slug });
    refresh();
    return { message: 'Your best provisional score counts for the final evaluation again.' };
  },
);
