'use server';
// The submit form's two steps: preview (what intake decides: files touched or the rejection) and
// submit (quota, burst limit, storage, queue). Both through safeAction: signed in, input parsed.
import { safeAction, ActionError } from '../../../../lib/server/web/safe-action';
import {
  previewForUser,
  submitForUser,
  submitInputSchema,
} from '../../../../lib/server/web/submit-for-user';

export const previewSubmission = safeAction(submitInputSchema, async (input) =>
  previewForUser(input),
);

export const createSubmission = safeAction(submitInputSchema, async (input, user) => {
  const outcome = await submitForUser(user.id, input);
  if (!outcome.ok)
    throw new ActionError(outcome.file ? `${outcome.message} (${outcome.file})` : outcome.message);
  return { submissionId: outcome.submissionId, queued: outcome.queued };
});
