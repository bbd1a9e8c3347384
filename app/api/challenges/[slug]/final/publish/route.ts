// POST /api/challenges/[slug]/final/publish (organizers): the latest final evaluation, once DONE,
// becomes the contest's result → 200 { evaluationId, publishedAt }; 409 when it is not done.
import { db } from '../../../../../../lib/server/db/client';
import { getFinalEvaluation } from '../../../../../../lib/server/db/final/get-final-evaluation';
import { publishFinalResults } from '../../../../../../lib/server/submit/final-evaluation';
import { HttpError, route } from '../../../../../../lib/server/web/api-errors';
import {
  challengeSlugParamSchema,
  requireApiOrganizer,
} from '../../../../../../lib/server/web/final-api';
import { requestUser } from '../../../../../../lib/server/web/session';

export const dynamic = 'force-dynamic';

export const POST = route(
  async (request: Request, context: { params: Promise<{ slug: string }> }): Promise<Response> => {
    const slug = challengeSlugParamSchema.parse((await context.params).slug);
    const user = requireApiOrganizer(await requestUser(request));
    const view = await getFinalEvaluation(db(), slug, { includeUnpublished: true });
    if (!view) throw new HttpError('not-found', `No final evaluation of ${slug} yet`);
    await publishFinalResults({ db: db(), actorId: user.id, evaluationId: view.id });
    const after = await getFinalEvaluation(db(), slug, { includeUnpublished: true });
    return Response.json(
      { evaluationId: view.id, publishedAt: after?.publishedAt ?? null },
      { headers: { 'cache-control': 'no-store' } },
    );
  },
);
