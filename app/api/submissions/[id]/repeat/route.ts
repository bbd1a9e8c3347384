// POST /api/submissions/[id]/repeat (organizers): "rejudge N times". JSON { times (2–20), target?,
// reason } → 201 { seriesId, judgings, queued }: N independent judgings per target, recorded beside
// the submission, never changing its verdict, score or leaderboard row. GET: every repeat so far.
import { db } from '../../../../../lib/server/db/client';
import { listRepeatJudgings } from '../../../../../lib/server/db/judgings/list-repeat-judgings';
import { requestRepeatJudgings } from '../../../../../lib/server/submit/repeat-judgings';
import { HttpError, route } from '../../../../../lib/server/web/api-errors';
import {
  MAX_FINAL_BODY_BYTES,
  repeatInputSchema,
  requireApiOrganizer,
} from '../../../../../lib/server/web/final-api';
import { readJsonBody } from '../../../../../lib/server/web/read-json';
import { webQueues } from '../../../../../lib/server/web/services';
import { requestUser } from '../../../../../lib/server/web/session';
import { submissionIdSchema } from '../../../../../lib/server/web/submission-id';
import { NotFoundError } from '../../../../../lib/server/db/errors';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

export const POST = route(async (request: Request, context: Context): Promise<Response> => {
  const id = submissionIdSchema.parse((await context.params).id);
  const user = requireApiOrganizer(await requestUser(request));
  const input = repeatInputSchema.parse(await readJsonBody(request, MAX_FINAL_BODY_BYTES));
  try {
    const outcome = await requestRepeatJudgings({
      db: db(),
      queues: webQueues(),
      actorId: user.id,
      submissionId: id,
      times: input.times,
      reason: input.reason,
      target: input.target,
      onEnqueueError: (error) =>
        console.error(`web: repeats of ${id} not queued yet: ${error.message}`),
    });
    return Response.json(outcome, { status: 201, headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    if (error instanceof NotFoundError) throw new HttpError('not-found', error.message);
    throw error;
  }
});

export const GET = route(async (request: Request, context: Context): Promise<Response> => {
  const id = submissionIdSchema.parse((await context.params).id);
  requireApiOrganizer(await requestUser(request));
  return Response.json(
    { submissionId: id, repeats: await listRepeatJudgings(db(), id) },
    { headers: { 'cache-control': 'no-store' } },
  );
});
