// POST /api/challenges/[slug]/final/cancel (organizers): JSON { reason } stops the running final
// evaluation (audit-logged) → 200 { evaluationId, status: 'CANCELLED' }; 409 when none is running.
import { db } from '../../../../../../lib/db/client';
import { getFinalEvaluation } from '../../../../../../lib/db/get-final-evaluation';
import { cancelFinalEvaluation } from '../../../../../../lib/submit/final-evaluation';
import { HttpError, route } from '../../../../../../lib/web/api-errors';
import {
  cancelFinalInputSchema,
  challengeSlugParamSchema,
  MAX_FINAL_BODY_BYTES,
  requireApiOrganizer,
} from '../../../../../../lib/web/final-api';
import { readJsonBody } from '../../../../../../lib/web/read-json';
import { webQueues } from '../../../../../../lib/web/services';
import { requestUser } from '../../../../../../lib/web/session';

export const dynamic = 'force-dynamic';

export const POST = route(
  async (request: Request, context: { params: Promise<{ slug: string }> }): Promise<Response> => {
    const slug = challengeSlugParamSchema.parse((await context.params).slug);
    const user = requireApiOrganizer(await requestUser(request));
    const { reason } = cancelFinalInputSchema.parse(
      await readJsonBody(request, MAX_FINAL_BODY_BYTES),
    );
    const view = await getFinalEvaluation(db(), slug, { includeUnpublished: true });
    if (!view)
      throw new HttpError(404, `No final evaluation of ${slug} yet`, 'no-final-evaluation');
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
