// GET /submissions/[id]/profile/[target]: one target's sampled profiles (baseline and solution) as a
// speedscope file (https://www.speedscope.app opens it: drop the file on the page). Function names
// and call stacks are the contestant's code: access as the page's and the patch's.
import { targetIdSchema } from '../../../../../contracts';
import { db } from '../../../../../lib/server/db/client';
import { getSubmissionView } from '../../../../../lib/server/db/submissions/get-submission-view';
import { speedscopeFile } from '../../../../../lib/core/profile/folded-stacks';
import { HttpError, route } from '../../../../../lib/server/web/api-errors';
import { requestUser } from '../../../../../lib/server/web/session';
import { submissionIdSchema } from '../../../../../lib/server/web/submission-id';

export const dynamic = 'force-dynamic';

export const GET = route(
  async (
    request: Request,
    context: { params: Promise<{ id: string; target: string }> },
  ): Promise<Response> => {
    const params = await context.params;
    const id = submissionIdSchema.parse(params.id);
    const target = targetIdSchema.parse(params.target);
    const view = await getSubmissionView(db(), {
      submissionId: id,
      viewer: await requestUser(request),
    });
    const sampled = view?.judgings.find((j) => j.target === target)?.result?.stages.profile
      ?.sampled;
    if (!sampled) throw new HttpError('not-found', `No sampled profile for ${target} of ${id}`);
    const file = speedscopeFile(`submission ${id} on ${target}`, [
      { name: 'baseline', profile: sampled.baseline },
      { name: 'solution', profile: sampled.solution },
    ]);
    return new Response(JSON.stringify(file), {
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-disposition': `attachment; filename="${id}-${target}.speedscope.json"`,
        'cache-control': 'private, no-store',
      },
    });
  },
);
