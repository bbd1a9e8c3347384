// The client side of a submission's live state, for `perfjudge status` and `perfjudge submit --wait`:
//   GET <server>/api/submissions/<id>         the state as JSON (lib/server/web/submission-progress.ts)
//   GET <server>/api/submissions/<id>/events  the same as Server-Sent Events: `progress` events, then
//                                             `done`; a stream ends after a few minutes (reconnect)
// Both take `Authorization: Bearer <API token>` and answer 404 to anyone who may not see it.
// Only the fields printed here are required, so the page's owners can add fields freely.
import { z } from 'zod';
import { SubmitClientError, submissionsUrl } from './submit-client';

const MAX_STATE_BYTES = 1 << 20;

export const submissionTargetStateSchema = z.looseObject({
  target: z.string().max(64),
  status: z.string().max(32),
  verdict: z.string().max(64).nullable(),
  stage: z.string().max(32),
  stageFraction: z.number().nullable(),
  overall: z.number().min(0).max(1),
  message: z.string().max(2000).nullable(),
  speedup: z.number().nullable(),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
});
export type SubmissionTargetState = z.infer<typeof submissionTargetStateSchema>;

export const submissionStateSchema = z.looseObject({
  submissionId: z.string().max(64),
  status: z.string().max(32),
  verdict: z.string().max(64).nullable(),
  score: z.number().nullable(),
  disqualified: z.boolean().optional(),
  done: z.boolean(),
  targets: z.array(submissionTargetStateSchema).max(32),
});
export type SubmissionState = z.infer<typeof submissionStateSchema>;

export interface StatusRequest {
  server: string;
  token: string;
  submissionId: string;
  timeoutMs?: number;
}

function submissionUrl(server: string, id: string, suffix = ''): URL {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id))
    throw new SubmitClientError('protocol', `"${id}" is not a submission id`);
  return new URL(`${id}${suffix}`, `${submissionsUrl(server).href}/`);
}

function unreachable(url: URL, error: unknown): SubmitClientError {
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  const why =
    (error as Error).name === 'TimeoutError'
      ? 'no answer in time'
      : (cause?.code ?? cause?.message ?? (error as Error).message);
  return new SubmitClientError('unreachable', `cannot reach ${url.origin} (${why})`);
}

function refusal(status: number, id: string): SubmitClientError {
  if (status === 401)
    return new SubmitClientError(
      'unauthorized',
      'the server refused the token (401): it may be mistyped, revoked or expired',
      status,
    );
  if (status === 404)
    return new SubmitClientError(
      'not-found',
      `no submission ${id} that this token may see (404)`,
      status,
    );
  if (status >= 500)
    return new SubmitClientError('server', `the server failed (${status})`, status);
  return new SubmitClientError('protocol', `unexpected answer ${status}`, status);
}

export function parseSubmissionState(text: string): SubmissionState {
  if (text.length > MAX_STATE_BYTES)
    throw new SubmitClientError(
      'protocol',
      `the server's answer is larger than ${MAX_STATE_BYTES} bytes`,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SubmitClientError('protocol', 'the server did not answer JSON');
  }
  const parsed = submissionStateSchema.safeParse(body);
  if (!parsed.success)
    throw new SubmitClientError(
      'protocol',
      `the server's answer is not a submission state: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
    );
  return parsed.data;
}

/** The submission's state now. */
export async function getSubmissionState(request: StatusRequest): Promise<SubmissionState> {
  const url = submissionUrl(request.server, request.submissionId);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${request.token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(request.timeoutMs ?? 30_000),
      redirect: 'error',
    });
  } catch (error) {
    throw unreachable(url, error);
  }
  if (response.status !== 200) throw refusal(response.status, request.submissionId);
  return parseSubmissionState(await response.text());
}

/** Server-Sent Events of one stream: yields each `progress` state; returns true after `done`. */
async function* readEvents(response: Response): AsyncGenerator<SubmissionState, boolean> {
  if (!response.body) return false;
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    if (buffered.length > MAX_STATE_BYTES * 2)
      throw new SubmitClientError('protocol', 'an event of the stream is too large');
    let end: number;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (event === 'progress') yield parseSubmissionState(data.join('\n'));
      else if (event === 'done') return true;
    }
  }
  return false;
}

export interface FollowOptions extends StatusRequest {
  /** Poll interval when the event stream is not available. */
  pollMs?: number;
  signal?: AbortSignal;
}

/**
 * Every new state of the submission until it is done (the last one yielded has `done`): the event
 * stream, reconnected when it ends early, and polling when the server cannot stream.
 */
export async function* followSubmission(options: FollowOptions): AsyncGenerator<SubmissionState> {
  const pollMs = options.pollMs ?? 2_000;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let streaming = true;
  let last: SubmissionState | undefined;
  while (!options.signal?.aborted) {
    if (streaming) {
      const url = submissionUrl(options.server, options.submissionId, '/events');
      let response: Response | undefined;
      try {
        response = await fetch(url, {
          headers: { authorization: `Bearer ${options.token}`, accept: 'text/event-stream' },
          redirect: 'error',
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch {
        response = undefined;
      }
      if (response?.status === 401 || response?.status === 404)
        throw refusal(response.status, options.submissionId);
      if (
        response?.status === 200 &&
        response.headers.get('content-type')?.startsWith('text/event-stream')
      ) {
        try {
          const events = readEvents(response);
          for (;;) {
            const next = await events.next();
            if (next.done) break;
            last = next.value;
            yield next.value;
            if (next.value.done) return;
          }
        } catch (error) {
          if (error instanceof SubmitClientError && error.failure === 'protocol') throw error;
          // The connection dropped: reconnect below.
        }
        // The stream ended (its lifetime, or `done` before a final state): look at the state once.
      } else {
        // No stream here (a proxy, or too many open streams): poll instead.
        streaming = false;
      }
    }
    const state = await getSubmissionState(options);
    if (JSON.stringify(state) !== JSON.stringify(last)) {
      last = state;
      yield state;
    }
    if (state.done) return;
    if (!streaming) await sleep(pollMs);
    else await sleep(250);
  }
}
