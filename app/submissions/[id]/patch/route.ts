// GET /submissions/[id]/patch: the submission's patch as plain text (what `git apply` takes), for
// its author and the organizers, and for everyone once the solutions are published; 404 otherwise.
import { db } from '../../../../lib/server/db/client';
import { getSubmissionPatch } from '../../../../lib/server/db/submissions/get-submission-patch';
import { HttpError, route } from '../../../../lib/server/web/api-errors';
import { requestUser } from '../../../../lib/server/web/session';
import { submissionIdSchema } from '../../../../lib/server/web/submission-id';

export const dynamic = 'force-dynamic';

export const GET = route(
  async (request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> => {
    const id = submissionIdSchema.parse((await context.params).id);
    const patch = await getSubmissionPatch(db(), {
      submissionId: id,
      viewer: await requestUser(request),
    });
    if (!patch) throw new HttpError('not-found', `No submission ${id}`);
    return new Response(patch.patchText, {
      headers: {
        // text/plain and nosniff (next.config.ts): a patch is never rendered as HTML.
        'content-type': 'text/plain; charset=utf-8',
        'content-disposition': `inline; filename="${patch.id}.patch"`,
        'cache-control': 'private, no-store',
      },
    });
  },
);
