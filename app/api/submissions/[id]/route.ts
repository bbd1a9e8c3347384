// GET /api/submissions/[id]: a submission's live state as JSON (status, verdict, score, each target's
// stage and progress), for the command line and as the submission page's fallback when Server-Sent
// Events fail. Same access rule as the page: 404 for anyone who may not see it.
import { canViewPatch } from '../../../../lib/core/access/patch-access';
import { db } from '../../../../lib/server/db/client';
import { HttpError, route } from '../../../../lib/server/web/api-errors';
import { webQueues } from '../../../../lib/server/web/services';
import { requestUser } from '../../../../lib/server/web/session';
import { submissionIdSchema } from '../../../../lib/server/web/submission-id';
import { readSubmissionProgress } from '../../../../lib/server/web/submission-progress';

export const dynamic = 'force-dynamic';

export const GET = route(
  async (request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> => {
    const id = submissionIdSchema.parse((await context.params).id);
    const user = await requestUser(request);
    const read = await readSubmissionProgress(db(), webQueues(), id);
    if (!read || !canViewPatch(user, read.access))
      throw new HttpError('not-found', `No submission ${id}`);
    return Response.json(
      {
        ...read.progress,
        links: {
          page: `/submissions/${id}`,
          patch: `/submissions/${id}/patch`,
          events: `/api/submissions/${id}/events`,
        },
      },
      { headers: { 'cache-control': 'no-store' } },
    );
  },
);
