// The client side of the final evaluation's API, for `perfjudge final …`, `select` and `repeat`:
//   GET  <server>/api/challenges/<slug>/final           the evaluation (lib/server/db/final/get-final-evaluation.ts)
//   POST <server>/api/challenges/<slug>/final           start it (organizers)
//   POST <server>/api/challenges/<slug>/final/publish   publish it (organizers)
//   POST <server>/api/challenges/<slug>/final/cancel    { reason } (organizers)
//   PUT  <server>/api/challenges/<slug>/final-selection { submissionId } (the contestant)
//   POST <server>/api/submissions/<id>/repeat           { times, target?, reason } (organizers)
// api-client.ts makes each request and maps its failures (409 and 422: refused, with the rule).
// Only the fields printed are required, so the server may add fields freely.
import { z } from 'zod';
import {
  callApi,
  challengePath,
  parseAnswer,
  submissionPath,
  type ApiConnection,
} from './api-client';

const targetFigureSchema = z.looseObject({
  target: z.string(),
  speedup: z.number(),
  ciLow: z.number(),
  ciHigh: z.number(),
  rounds: z.number(),
});

export const finalEvaluationStateSchema = z.looseObject({
  id: z.string(),
  status: z.enum(['RUNNING', 'DONE', 'FAILED', 'CANCELLED']),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  publishedAt: z.string().nullable(),
  rounds: z.number(),
  errorRate: z.number(),
  message: z.string().nullable(),
  sessions: z.array(
    z.looseObject({
      target: z.string(),
      status: z.string(),
      roundsDone: z.number(),
      roundsPlanned: z.number(),
      etaMs: z.number().nullable(),
      message: z.string().nullable(),
    }),
  ),
  entrants: z.array(
    z.looseObject({
      userName: z.string(),
      /** Shown to the public only once the solutions are published. */
      submissionId: z.string().optional(),
      excludedReason: z.string().nullable(),
      place: z.number().nullable(),
      score: z.number().nullable(),
      scoreCiLow: z.number().nullable(),
      scoreCiHigh: z.number().nullable(),
      perTarget: z.array(targetFigureSchema),
      tiedWith: z.array(z.string()),
      tieReason: z.string().nullable(),
      plausibilityFlags: z.array(z.string()),
    }),
  ),
  method: z.string().nullable(),
});
export type FinalEvaluationState = z.infer<typeof finalEvaluationStateSchema>;

export async function getFinalState(
  request: ApiConnection & { challenge: string },
): Promise<FinalEvaluationState> {
  const { body } = await callApi({
    ...request,
    method: 'GET',
    path: challengePath(request.challenge, '/final'),
  });
  return parseAnswer(finalEvaluationStateSchema, body, 'a final evaluation');
}

export async function startFinal(
  request: ApiConnection & {
    challenge: string;
    options: {
      keepProvisionalSeed?: boolean;
      rounds?: number;
      spreadAcrossHosts?: boolean;
      errorRate?: number;
    };
  },
): Promise<{ evaluationId: string; finalists: number; sessions: number }> {
  const { body } = await callApi({
    ...request,
    method: 'POST',
    path: challengePath(request.challenge, '/final'),
    body: request.options,
  });
  return parseAnswer(
    z.looseObject({ evaluationId: z.string(), finalists: z.number(), sessions: z.number() }),
    body,
    'a started evaluation',
  );
}

export async function publishFinal(request: ApiConnection & { challenge: string }): Promise<void> {
  await callApi({
    ...request,
    method: 'POST',
    path: challengePath(request.challenge, '/final/publish'),
    body: {},
  });
}

export async function cancelFinal(
  request: ApiConnection & { challenge: string; reason: string },
): Promise<void> {
  await callApi({
    ...request,
    method: 'POST',
    path: challengePath(request.challenge, '/final/cancel'),
    body: { reason: request.reason },
  });
}

export async function selectFinal(
  request: ApiConnection & { challenge: string; submissionId: string },
): Promise<void> {
  await callApi({
    ...request,
    method: 'PUT',
    path: challengePath(request.challenge, '/final-selection'),
    body: { submissionId: request.submissionId },
  });
}

export async function requestRepeats(
  request: ApiConnection & { submissionId: string; times: number; target?: string; reason: string },
): Promise<{ seriesId: string; judgings: number }> {
  const { body } = await callApi({
    ...request,
    method: 'POST',
    path: submissionPath(request.submissionId, '/repeat'),
    body: {
      times: request.times,
      reason: request.reason,
      ...(request.target ? { target: request.target } : {}),
    },
  });
  return parseAnswer(
    z.looseObject({ seriesId: z.string(), judgings: z.number() }),
    body,
    'a repeat series',
  );
}
