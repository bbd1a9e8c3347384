// The client side of `POST <server>/api/submissions`, for `perfjudge submit`. The route arrives with
// the web app; this is the contract it is to implement:
//   request:  Authorization: Bearer <API token>; JSON { challenge: slug, patch: text }
//   201/202:  { submissionId, status?, url? }
//   401:      bad, revoked or expired token            422: { error: { code?, reason?, message } }
//   413:      patch too large    429: quota reached    5xx: the server's fault
import { z } from 'zod';

export type SubmitFailure =
  | 'unreachable'
  | 'unauthorized'
  | 'forbidden'
  | 'rejected'
  | 'too-large'
  | 'rate-limited'
  | 'not-found'
  | 'server'
  | 'protocol';

export class SubmitClientError extends Error {
  override name = 'SubmitClientError';
  constructor(
    readonly failure: SubmitFailure,
    message: string,
    readonly status?: number,
    /** The intake's reason code on a 422 (e.g. protected-file), when the server gives one. */
    readonly reason?: string,
  ) {
    super(message);
  }
}

export interface SubmitRequest {
  /** Base URL of the platform, e.g. https://contest.example.org (a path prefix is kept). */
  server: string;
  token: string;
  challenge: string;
  patchText: string;
  timeoutMs?: number;
}

const acceptedSchema = z.object({
  submissionId: z.string().min(1),
  status: z.string().optional(),
  url: z.string().optional(),
});
export type SubmitAccepted = z.infer<typeof acceptedSchema>;

const errorBodySchema = z.union([
  z.object({
    error: z.object({
      message: z.string(),
      code: z.string().optional(),
      reason: z.string().optional(),
    }),
  }),
  z.object({ error: z.string() }),
  z.object({ message: z.string(), reason: z.string().optional() }),
]);

/** The server's own words when it gives them (a short, plain message), else null. */
function errorDetail(body: unknown): { message: string; reason?: string } | null {
  const parsed = errorBodySchema.safeParse(body);
  if (!parsed.success) return null;
  const e = parsed.data;
  if ('error' in e)
    return typeof e.error === 'string'
      ? { message: e.error }
      : { message: e.error.message, ...(e.error.reason ? { reason: e.error.reason } : {}) };
  return { message: e.message, ...(e.reason ? { reason: e.reason } : {}) };
}

export function submissionsUrl(server: string): URL {
  let base: URL;
  try {
    base = new URL(server.endsWith('/') ? server : `${server}/`);
  } catch {
    throw new SubmitClientError('unreachable', `--server: "${server}" is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new SubmitClientError('unreachable', `--server: "${server}" is not an http(s) URL`);
  return new URL('api/submissions', base);
}

export async function postSubmission(request: SubmitRequest): Promise<SubmitAccepted> {
  const url = submissionsUrl(request.server);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${request.token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ challenge: request.challenge, patch: request.patchText }),
      signal: AbortSignal.timeout(request.timeoutMs ?? 60_000),
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
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page): only the status speaks.
  }
  const detail = errorDetail(body);
  const status = response.status;
  if (status === 201 || status === 202 || status === 200) {
    const accepted = acceptedSchema.safeParse(body);
    if (!accepted.success)
      throw new SubmitClientError(
        'protocol',
        `the server answered ${status} without a submission id`,
        status,
      );
    return accepted.data;
  }
  const said = detail ? `: ${detail.message}` : '';
  if (status === 401)
    throw new SubmitClientError(
      'unauthorized',
      `the server refused the token (401)${said}. Check --token: it may be mistyped, revoked or expired`,
      status,
    );
  if (status === 403) throw new SubmitClientError('forbidden', `not allowed (403)${said}`, status);
  if (status === 404)
    throw new SubmitClientError(
      'not-found',
      `not found (404)${said}. Is ${url.origin} a perfjudge server, and does the challenge "${request.challenge}" exist?`,
      status,
    );
  if (status === 413)
    throw new SubmitClientError('too-large', `the patch is too large (413)${said}`, status);
  if (status === 422)
    throw new SubmitClientError(
      'rejected',
      `the patch was rejected${detail?.reason ? ` (${detail.reason})` : ''}${said || ' (422)'}`,
      status,
      detail?.reason,
    );
  if (status === 429)
    throw new SubmitClientError(
      'rate-limited',
      `too many submissions (429)${said}${response.headers.get('retry-after') ? `; try again in ${response.headers.get('retry-after')} s` : ''}`,
      status,
    );
  if (status >= 500)
    throw new SubmitClientError('server', `the server failed (${status})${said}`, status);
  throw new SubmitClientError('protocol', `unexpected answer ${status}${said}`, status);
}
