// POST /api/challenges/[slug]/final/cancel (organizers): JSON { reason } stops the running final
// evaluation (audit-logged) → 200 { evaluationId, status: 'CANCELLED' }; 409 when none is running.
import { db } from '../../../../../../lib/server/db/client';
import { getFinalEvaluation } from '../../../../../../lib/server/db/final/get-final-evaluation';
import { cancelFinalEvaluation } from '../../../../../../lib/server/submit/final-evaluation';
import { HttpError, route } from '../../../../../../lib/server/web/api-errors';
import {
  cancelFinalInputSchema,
  challengeSlugParamSchema,
  MAX_FINAL_BODY_BYTES,
  requireApiOrganizer,
} from '../../../../../../lib/server/web/final-api';
import { readJsonBody } from '../../../../../../lib/server/web/read-json';
import { webQueues } from '../../../../../../lib/server/web/services';
import { requestUser } from '../../../../../../lib/server/web/session';

export const dynamic = 'force-dynamic';

export const POST = route(
  async (request: Request, context: { params: Promise<{ slug: string }> }): Promise<Response> => {
    const slug = challengeSlugParamSchema.parse((await context.params).slug);
    const user = requireApiOrganizer(await requestUser(request));
    const { reason } = cancelFinalInputSchema.parse(
      await readJsonBody(request, MAX_FINAL_BODY_BYTES),
    );
    const view = await getFinalEvaluation(db(), slug, { includeUnpublished: true });
    if (!view) throw new HttpError('not-found', `No final evaluation of ${slug} yet`);
    await cancelFinalEvaluation({
      db: db(),
      queues: webQueues(),
      actorId: user.id,
      evaluationId: view.id,
      reason,
    });
    return Response.json(
      { evaluationId: view.id, status: 'CANCELLED' },
      { headers: { 'cache-control': 'no-store' } },
    );
  },
);
