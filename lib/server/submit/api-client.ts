// The CLI's one HTTP client of the platform's API (`perfjudge submit`, `status`, `final`, `select`,
// `repeat`): the URL under the server's path prefix, the bearer token, a time limit, a size limit on
// the answer, and one mapping of every failure — no answer, a refusal by status, an answer that is
// not what was asked — to an ApiClientError, whose failure says which and whose exit code is chosen
// here once. Errors from the server are { error: { message, code?, reason?, rule? } } (older and
// simpler shapes are read too: { error: "…" }, { message }).
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../../contracts';

export type ApiFailure =
  | 'unreachable'
  | 'unauthorized'
  | 'forbidden'
  | 'rejected'
  | 'too-large'
  | 'rate-limited'
  | 'not-found'
  | 'server'
  | 'protocol';

/** Each failure's code in the one error model (contracts/errors.ts), and the CLI's exit code. */
const FAILURES: Record<ApiFailure, { code: ErrorCode; exitCode: 1 | 2 }> = {
  unreachable: { code: 'unavailable', exitCode: 2 },
  unauthorized: { code: 'unauthorized', exitCode: 2 },
  forbidden: { code: 'forbidden', exitCode: 2 },
  // Refused for what was sent (the patch, the timeline): the caller's answer, not a failure to ask.
  rejected: { code: 'rejected', exitCode: 1 },
  'too-large': { code: 'too-large', exitCode: 1 },
  'rate-limited': { code: 'quota', exitCode: 2 },
  'not-found': { code: 'not-found', exitCode: 2 },
  server: { code: 'unavailable', exitCode: 2 },
  protocol: { code: 'invalid-result', exitCode: 2 },
};

export class ApiClientError extends AppError {
  override name = 'ApiClientError';
  readonly code: ErrorCode;
  /** 1 when the server refused what was sent (rejected, too large), else 2. */
  readonly exitCode: 1 | 2;
  constructor(
    readonly failure: ApiFailure,
    message: string,
    readonly status?: number,
    /** Which rule refused it (a 422's reason code, a 409's rule), when the server says. */
    readonly reason?: string,
  ) {
    super(message);
    this.code = FAILURES[failure].code;
    this.exitCode = FAILURES[failure].exitCode;
  }
}

export interface ApiConnection {
  /** Base URL of the platform, e.g. https://contest.example.org (a path prefix is kept). */
  server: string;
  token: string;
  timeoutMs?: number;
}

const MAX_ANSWER_BYTES = 4 << 20;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** <server>/api/<path>, the server's path prefix kept. */
export function apiUrl(server: string, path: string): URL {
  let base: URL;
  try {
    base = new URL(server.endsWith('/') ? server : `${server}/`);
  } catch {
    throw new ApiClientError('unreachable', `--server: "${server}" is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new ApiClientError('unreachable', `--server: "${server}" is not an http(s) URL`);
  return new URL(`api/${path}`, base);
}

/** `submissions/<id><suffix>`, the id checked before it goes into a URL. */
export function submissionPath(id: string, suffix = ''): string {
  if (!ID.test(id)) throw new ApiClientError('protocol', `"${id}" is not a submission id`);
  return `submissions/${id}${suffix}`;
}

/** `challenges/<slug><suffix>`, the slug checked before it goes into a URL. */
export function challengePath(slug: string, suffix = ''): string {
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(slug))
    throw new ApiClientError('protocol', `"${slug}" is not a challenge slug`);
  return `challenges/${slug}${suffix}`;
}

export function authorization(token: string): string {
  return `Bearer ${token}`;
}

/** A fetch that got no answer (refused, reset, timed out), said plainly. */
function unreachable(url: URL, error: unknown): ApiClientError {
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  const why =
    (error as Error).name === 'TimeoutError'
      ? 'no answer in time'
      : (cause?.code ?? cause?.message ?? (error as Error).message);
  return new ApiClientError('unreachable', `cannot reach ${url.origin} (${why})`);
}

const errorBodySchema = z.union([
  z.object({
    error: z.object({
      message: z.string().max(2000),
      code: z.string().max(80).optional(),
      reason: z.string().max(80).optional(),
      rule: z.string().max(80).optional(),
    }),
  }),
  z.object({ error: z.string().max(2000) }),
  z.object({ message: z.string().max(2000), reason: z.string().max(80).optional() }),
]);

/** The server's own words when it gives them, and the rule or reason code it names. */
function errorDetail(body: unknown): { message: string; reason?: string } | null {
  const parsed = errorBodySchema.safeParse(body);
  if (!parsed.success) return null;
  const e = parsed.data;
  if (!('error' in e)) return { message: e.message, ...(e.reason ? { reason: e.reason } : {}) };
  if (typeof e.error === 'string') return { message: e.error };
  const reason = e.error.reason ?? e.error.rule ?? e.error.code;
  return { message: e.error.message, ...(reason ? { reason } : {}) };
}

/** A call's own words for a refusal, where the generic ones would not say enough. */
export interface RefusalHints {
  /** What to check after "the server refused the token (401)". */
  401?: string;
  /** The whole message of a 404, given the server's own words (": …" or ""). */
  404?: (said: string) => string;
  /** What a 422 refused ("the patch was rejected"), instead of "refused (422)". */
  422?: string;
  /** What there were too many of ("too many submissions"), instead of "too many requests". */
  429?: string;
}

/** A non-2xx answer as an ApiClientError, in the server's words where it gave them. */
export function refusal(
  status: number,
  body: unknown,
  hints: RefusalHints = {},
  retryAfter: string | null = null,
): ApiClientError {
  const detail = errorDetail(body);
  const said = detail ? `: ${detail.message}` : '';
  if (status === 401)
    return new ApiClientError(
      'unauthorized',
      `the server refused the token (401)${said}. ${hints[401] ?? 'It may be mistyped, revoked or expired'}`,
      status,
    );
  if (status === 403) return new ApiClientError('forbidden', `not allowed (403)${said}`, status);
  if (status === 404)
    return new ApiClientError('not-found', hints[404]?.(said) ?? `not found (404)${said}`, status);
  if (status === 413)
    return new ApiClientError('too-large', `the patch is too large (413)${said}`, status);
  if (status === 409 || status === 422) {
    const reason = detail?.reason ? ` (${detail.reason})` : '';
    const words =
      status === 422 && hints[422]
        ? `${hints[422]}${reason}${said || ' (422)'}`
        : `refused (${status})${said}`;
    return new ApiClientError('rejected', words, status, detail?.reason);
  }
  if (status === 429)
    return new ApiClientError(
      'rate-limited',
      `${hints[429] ?? 'too many requests'} (429)${said}${retryAfter ? `; try again in ${retryAfter} s` : ''}`,
      status,
    );
  if (status >= 500)
    return new ApiClientError('server', `the server failed (${status})${said}`, status);
  return new ApiClientError('protocol', `unexpected answer ${status}${said}`, status);
}

/** Parses an answer with its schema; one that does not fit is the server's fault, said so. */
export function parseAnswer<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const r = schema.safeParse(body);
  if (!r.success)
    throw new ApiClientError(
      'protocol',
      `the server's answer is not ${what}: ${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`,
    );
  return r.data;
}

/** Reads a JSON text of at most MAX_ANSWER_BYTES; a proxy's error page reads as null. */
export function readJson(text: string): unknown {
  if (text.length > MAX_ANSWER_BYTES)
    throw new ApiClientError(
      'protocol',
      `the server's answer is larger than ${MAX_ANSWER_BYTES} bytes`,
    );
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

export interface ApiCall extends ApiConnection {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  hints?: RefusalHints;
}

/** One request; a 2xx answer's JSON body (null when it has none), else an ApiClientError. */
export async function callApi(call: ApiCall): Promise<{ status: number; body: unknown }> {
  const url = apiUrl(call.server, call.path);
  let response: Response;
  try {
    response = await fetch(url, {
      method: call.method,
      headers: {
        authorization: authorization(call.token),
        accept: 'application/json',
        ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      signal: AbortSignal.timeout(call.timeoutMs ?? 30_000),
      redirect: 'error',
    });
  } catch (error) {
    throw unreachable(url, error);
  }
  const body = readJson(await response.text());
  if (response.status >= 200 && response.status < 300) return { status: response.status, body };
  throw refusal(response.status, body, call.hints, response.headers.get('retry-after'));
}
