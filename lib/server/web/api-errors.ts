// The web edge of the error model (contracts/errors.ts): the one map from error codes to HTTP
// statuses, and the one error mapper of the route handlers: bad input → 422 naming the field, the
// platform's own errors → their code's status (a user's message as it is, ours opaque), anything
// else → an opaque 500 whose detail goes only to the server's log.
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../../contracts/errors';
import { firstIssue } from '../../../contracts/zod-issues';
import { RefusedError } from '../db/errors';

export const HTTP_STATUS: Record<ErrorCode, number> = {
  'invalid-input': 422,
  'invalid-json': 422,
  'unsupported-media-type': 415,
  'too-large': 413,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  'unknown-challenge': 404,
  conflict: 409,
  closed: 403,
  quota: 429,
  burst: 429,
  refused: 409,
  usage: 400,
  rejected: 422,
  config: 500,
  'invalid-challenge': 500,
  unavailable: 503,
  busy: 503,
  timeout: 504,
  'judge-error': 500,
  'invalid-result': 500,
  cancelled: 503,
  internal: 500,
};

/**
 * The status of a code; a rejected patch answers as what rejected it (too large, or a challenge
 * that does not exist), so clients can tell those apart by status alone.
 */
export function httpStatus(code: ErrorCode, reason?: string): number {
  if (code === 'rejected' && reason === 'too-large') return HTTP_STATUS['too-large'];
  if (code === 'rejected' && reason === 'unknown-challenge')
    return HTTP_STATUS['unknown-challenge'];
  return HTTP_STATUS[code];
}

/** An answer a route decided on: its code picks the status. */
export class HttpError extends AppError {
  override name = 'HttpError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function jsonError(
  code: ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  status = HTTP_STATUS[code],
): Response {
  return Response.json(
    { error: { message, code, ...extra } },
    { status, headers: { 'cache-control': 'no-store', ...headers } },
  );
}

function errorResponse(error: unknown): Response {
  if (error instanceof HttpError)
    return jsonError(error.code, error.message, error.extra, error.headers);
  if (error instanceof z.ZodError) return jsonError('invalid-input', firstIssue(error));
  // A lookup's message may name ids the caller must not learn exist: not found is all it says.
  if (error instanceof AppError && error.code === 'not-found')
    return jsonError('not-found', 'Not found');
  // Not allowed now (the timeline, a running evaluation): the message says why, the rule which.
  if (error instanceof RefusedError)
    return jsonError(error.code, error.message, { rule: error.rule });
  if (error instanceof AppError && error.fault === 'user')
    return jsonError(error.code, error.message);
  if (error instanceof AppError && error.code === 'unavailable') {
    console.error('web: route failed:', error);
    return jsonError('unavailable', 'A service the platform needs is not answering; try again.');
  }
  console.error('web: route failed:', error);
  return jsonError('internal', 'The server failed; the error was logged.');
}

/** Wraps a route handler so every failure goes through errorResponse. */
export function route<A extends unknown[]>(
  handler: (...args: A) => Promise<Response>,
): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
