// The client side of a submission's live state, for `perfjudge status` and `perfjudge submit --wait`:
//   GET <server>/api/submissions/<id>         the state as JSON (lib/server/web/submission-progress.ts)
//   GET <server>/api/submissions/<id>/events  the same as Server-Sent Events: `progress` events, then
//                                             `done`; a stream ends after a few minutes (reconnect)
// Both take `Authorization: Bearer <API token>` and answer 404 to anyone who may not see it.
// Only the fields printed here are required, so the page's owners can add fields freely.
import { z } from 'zod';
import {
  ApiClientError,
  apiUrl,
  authorization,
  callApi,
  parseAnswer,
  readJson,
  refusal,
  submissionPath,
  type ApiConnection,
  type RefusalHints,
} from './api-client';

/** Largest event of the stream, in characters. */
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

export interface StatusRequest extends ApiConnection {
  submissionId: string;
}

const notVisible = (id: string): RefusalHints => ({
  404: () => `no submission ${id} that this token may see (404)`,
});

function parseSubmissionState(text: string): SubmissionState {
  return parseAnswer(submissionStateSchema, readJson(text), 'a submission state');
}

/** The submission's state now. */
export async function getSubmissionState(request: StatusRequest): Promise<SubmissionState> {
  const { body } = await callApi({
    ...request,
    method: 'GET',
    path: submissionPath(request.submissionId),
    hints: notVisible(request.submissionId),
  });
  return parseAnswer(submissionStateSchema, body, 'a submission state');
}

/** Server-Sent Events of one stream: yields each `progress` state; returns true after `done`. */
async function* readEvents(response: Response): AsyncGenerator<SubmissionState, boolean> {
  if (!response.body) return false;
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    if (buffered.length > MAX_STATE_BYTES * 2)
      throw new ApiClientError('protocol', 'an event of the stream is too large');
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
      const url = apiUrl(options.server, submissionPath(options.submissionId, '/events'));
      let response: Response | undefined;
      try {
        response = await fetch(url, {
          headers: { authorization: authorization(options.token), accept: 'text/event-stream' },
          redirect: 'error',
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch {
        response = undefined;
      }
      if (response?.status === 401 || response?.status === 404)
        throw refusal(response.status, null, notVisible(options.submissionId));
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
          if (error instanceof ApiClientError && error.failure === 'protocol') throw error;
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
