// The client side of the final evaluation's API, for `perfjudge final …`, `select` and `repeat`:
//   GET  <server>/api/challenges/<slug>/final           the evaluation (lib/server/db/final/get-final-evaluation.ts)
//   POST <server>/api/challenges/<slug>/final           start it (organizers)
//   POST <server>/api/challenges/<slug>/final/publish   publish it (organizers)
//   POST <server>/api/challenges/<slug>/final/cancel    { reason } (organizers)
//   PUT  <server>/api/challenges/<slug>/final-selection { submissionId } (the contestant)
//   POST <server>/api/submissions/<id>/repeat           { times, target?, reason } (organizers)
// Every request takes `Authorization: Bearer <API token>`; errors are { error: { message, code } }.
// Only the fields printed are required, so the server may add fields freely.
import { z } from 'zod';
import { SubmitClientError, submissionsUrl } from './submit-client';

const MAX_ANSWER_BYTES = 4 << 20;

const errorBodySchema = z.object({
  error: z.object({
    message: z.string().max(2000),
    code: z.string().max(80).optional(),
    /** Which rule refused it (a 409 'refused'). */
    rule: z.string().max(80).optional(),
  }),
});

export interface ApiRequest {
  server: string;
  token: string;
  timeoutMs?: number;
}

/** <server>/api/<path>, the server's path prefix kept (as submissionsUrl does). */
function apiUrl(server: string, path: string): URL {
  return new URL(path, new URL('./', submissionsUrl(server)));
}

/** 409: the server refused it now (the timeline, a running evaluation), and said why. */
export async function callApi(
  request: ApiRequest & { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; body?: unknown },
): Promise<unknown> {
  const url = apiUrl(request.server, request.path);
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: {
        authorization: `Bearer ${request.token}`,
        accept: 'application/json',
        ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(request.timeoutMs ?? 30_000),
      redirect: 'error',
    });
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    const why =
      (error as Error).name === 'TimeoutError'
        ? 'no answer in time'
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new SubmitClientError('unreachable', `cannot reach ${url.origin} (${why})`);
  }
  const text = await response.text();
  if (text.length > MAX_ANSWER_BYTES)
    throw new SubmitClientError(
      'protocol',
      `the server's answer is larger than ${MAX_ANSWER_BYTES} bytes`,
    );
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // A proxy's error page: only the status speaks.
  }
  const status = response.status;
  if (status >= 200 && status < 300) return body;
  const detail = errorBodySchema.safeParse(body);
  const said = detail.success ? `: ${detail.data.error.message}` : '';
  if (status === 401)
    throw new SubmitClientError(
      'unauthorized',
      `the server refused the token (401)${said}. It may be mistyped, revoked or expired`,
      status,
    );
  if (status === 403) throw new SubmitClientError('forbidden', `not allowed (403)${said}`, status);
  if (status === 404) throw new SubmitClientError('not-found', `not found (404)${said}`, status);
  if (status === 409 || status === 422)
    throw new SubmitClientError(
      'rejected',
      `refused (${status})${said}`,
      status,
      detail.data?.error.rule ?? detail.data?.error.code,
    );
  if (status >= 500)
    throw new SubmitClientError('server', `the server failed (${status})${said}`, status);
  throw new SubmitClientError('protocol', `unexpected answer ${status}${said}`, status);
}

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

function parsed<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const r = schema.safeParse(body);
  if (!r.success)
    throw new SubmitClientError(
      'protocol',
      `the server's answer is not ${what}: ${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`,
    );
  return r.data;
}

function slugPath(slug: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(slug))
    throw new SubmitClientError('protocol', `"${slug}" is not a challenge slug`);
  return `challenges/${slug}`;
}

export async function getFinalState(
  request: ApiRequest & { challenge: string },
): Promise<FinalEvaluationState> {
  const body = await callApi({
    ...request,
    method: 'GET',
    path: `${slugPath(request.challenge)}/final`,
  });
  return parsed(finalEvaluationStateSchema, body, 'a final evaluation');
}

export async function startFinal(
  request: ApiRequest & {
    challenge: string;
    options: {
      keepProvisionalSeed?: boolean;
      rounds?: number;
      spreadAcrossHosts?: boolean;
      errorRate?: number;
    };
  },
): Promise<{ evaluationId: string; finalists: number; sessions: number }> {
  const body = await callApi({
    ...request,
    method: 'POST',
    path: `${slugPath(request.challenge)}/final`,
    body: request.options,
  });
  return parsed(
    z.looseObject({ evaluationId: z.string(), finalists: z.number(), sessions: z.number() }),
    body,
    'a started evaluation',
  );
}

export async function publishFinal(request: ApiRequest & { challenge: string }): Promise<void> {
  await callApi({
    ...request,
    method: 'POST',
    path: `${slugPath(request.challenge)}/final/publish`,
    body: {},
  });
}

export async function cancelFinal(
  request: ApiRequest & { challenge: string; reason: string },
): Promise<void> {
  await callApi({
    ...request,
    method: 'POST',
    path: `${slugPath(request.challenge)}/final/cancel`,
    body: { reason: request.reason },
  });
}

export async function selectFinal(
  request: ApiRequest & { challenge: string; submissionId: string },
): Promise<void> {
  await callApi({
    ...request,
    method: 'PUT',
    path: `${slugPath(request.challenge)}/final-selection`,
    body: { submissionId: request.submissionId },
  });
}

export async function requestRepeats(
  request: ApiRequest & { submissionId: string; times: number; target?: string; reason: string },
): Promise<{ seriesId: string; judgings: number }> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(request.submissionId))
    throw new SubmitClientError('protocol', `"${request.submissionId}" is not a submission id`);
  const body = await callApi({
    ...request,
    method: 'POST',
    path: `submissions/${request.submissionId}/repeat`,
    body: {
      times: request.times,
      reason: request.reason,
      ...(request.target ? { target: request.target } : {}),
    },
  });
  return parsed(
    z.looseObject({ seriesId: z.string(), judgings: z.number() }),
    body,
    'a repeat series',
  );
}
