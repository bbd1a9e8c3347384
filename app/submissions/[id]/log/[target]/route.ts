// GET /submissions/[id]/log/[target]: one target's full build log as plain text (the page shows it
// cut to a browser-friendly size). ?side=baseline for the baseline's build. Access as the page's.
import { z } from 'zod';
import { targetIdSchema } from '../../../../../contracts';
import { db } from '../../../../../lib/server/db/client';
import { getJudgingBuildLog } from '../../../../../lib/server/db/judgings/get-judging-build-log';
import { HttpError, route } from '../../../../../lib/server/web/api-errors';
import { requestUser } from '../../../../../lib/server/web/session';
import { submissionIdSchema } from '../../../../../lib/server/web/submission-id';

export const dynamic = 'force-dynamic';

const sideSchema = z.enum(['solution', 'baseline'], { error: 'side must be solution or baseline' });

export const GET = route(
  async (
    request: Request,
    context: { params: Promise<{ id: string; target: string }> },
  ): Promise<Response> => {
    const params = await context.params;
    const id = submissionIdSchema.parse(params.id);
    const target = targetIdSchema.parse(params.target);
    const side = sideSchema.parse(new URL(request.url).searchParams.get('side') ?? 'solution');
    const log = await getJudgingBuildLog(db(), {
      submissionId: id,
      target,
      side,
      viewer: await requestUser(request),
    });
    if (!log)
      throw new HttpError('not-found', `No ${side} build log for ${target} of submission ${id}`);
    return new Response(log.log, {
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'private, no-store',
      },
    });
  },
);
