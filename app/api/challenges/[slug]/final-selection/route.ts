// PUT /api/challenges/[slug]/final-selection: a contestant's final selection. JSON { submissionId }
// → 200 { challenge, submissionId }; 404 not theirs; 409 not accepted, disqualified, or the
// selection is closed. DELETE: back to their best provisional submission → 200.
import { db } from '../../../../../lib/server/db/client';
import { clearFinalSelection } from '../../../../../lib/server/db/final/clear-final-selection';
import { NotFoundError } from '../../../../../lib/server/db/errors';
import { selectFinalSubmission } from '../../../../../lib/server/db/final/select-final-submission';
import { HttpError, route } from '../../../../../lib/server/web/api-errors';
import {
  challengeSlugParamSchema,
  finalSelectionInputSchema,
  MAX_FINAL_BODY_BYTES,
  requireApiUser,
} from '../../../../../lib/server/web/final-api';
import { readJsonBody } from '../../../../../lib/server/web/read-json';
import { requestUser } from '../../../../../lib/server/web/session';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ slug: string }> };

export const PUT = route(async (request: Request, context: Context): Promise<Response> => {
  const slug = challengeSlugParamSchema.parse((await context.params).slug);
  const user = requireApiUser(await requestUser(request));
  const { submissionId } = finalSelectionInputSchema.parse(
    await readJsonBody(request, MAX_FINAL_BODY_BYTES),
  );
  try {
    await selectFinalSubmission(db(), { userId: user.id, submissionId, challengeSlug: slug });
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new HttpError('not-found', `You have no submission ${submissionId}`);
    throw error;
  }
  return Response.json(
    { challenge: slug, submissionId },
    { headers: { 'cache-control': 'no-store' } },
  );
});

export const DELETE = route(async (request: Request, context: Context): Promise<Response> => {
  const slug = challengeSlugParamSchema.parse((await context.params).slug);
  const user = requireApiUser(await requestUser(request));
  await clearFinalSelection(db(), { userId: user.id, challengeSlug: slug });
  return Response.json(
    { challenge: slug, submissionId: null },
    { headers: { 'cache-control': 'no-store' } },
  );
});
