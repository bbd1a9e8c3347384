// GET /api/challenges/[slug]/final: the latest final evaluation — its progress per target, and the
// ranking once published (organizers always, with plausibility flags, user and submission ids).
// 404 before there is one.
// POST (organizers): start it. JSON { keepProvisionalSeed?, rounds?, spreadAcrossHosts?, errorRate? }
// → 201 { evaluationId, finalists, sessions, queuedParts }; 409 before the deadline, while one runs,
// or without finalists.
import { db } from '../../../../../lib/server/db/client';
import { getFinalEvaluation } from '../../../../../lib/server/db/final/get-final-evaluation';
import { startFinalEvaluation } from '../../../../../lib/server/submit/final-evaluation';
import { HttpError, route } from '../../../../../lib/server/web/api-errors';
import {
  challengeSlugParamSchema,
  MAX_FINAL_BODY_BYTES,
  publicFinalEvaluation,
  requireApiOrganizer,
  startFinalInputSchema,
} from '../../../../../lib/server/web/final-api';
import { readJsonBody } from '../../../../../lib/server/web/read-json';
import { webQueues } from '../../../../../lib/server/web/services';
import { requestUser } from '../../../../../lib/server/web/session';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ slug: string }> };

export const GET = route(async (request: Request, context: Context): Promise<Response> => {
  const slug = challengeSlugParamSchema.parse((await context.params).slug);
  const user = await requestUser(request);
  const organizer = user?.role === 'ORGANIZER';
  const view = await getFinalEvaluation(db(), slug, { includeUnpublished: organizer });
  if (!view) throw new HttpError('not-found', `No final evaluation of ${slug} yet`);
  const challenge = await db().challenge.findUnique({
    where: { slug },
    select: { solutionsPublishedAt: true },
  });
  // The public sees what the public leaderboard shows: no user ids, submissions once published.
  const body = organizer
    ? view
    : publicFinalEvaluation(view, { solutionsPublished: !!challenge?.solutionsPublishedAt });
  return Response.json(body, { headers: { 'cache-control': 'no-store' } });
});

export const POST = route(async (request: Request, context: Context): Promise<Response> => {
  const slug = challengeSlugParamSchema.parse((await context.params).slug);
  const user = requireApiOrganizer(await requestUser(request));
  const input = startFinalInputSchema.parse(await readJsonBody(request, MAX_FINAL_BODY_BYTES));
  const started = await startFinalEvaluation({
    db: db(),
    queues: webQueues(),
    actorId: user.id,
    challengeSlug: slug,
    ...input,
    onEnqueueError: (error) =>
      console.error(`web: final evaluation of ${slug} not queued yet: ${error.message}`),
  });
  return Response.json(started, { status: 201, headers: { 'cache-control': 'no-store' } });
});
