// The one error mapper of the route handlers: bad input → 422 naming the field, known app errors →
// their status, anything else → an opaque 500 whose detail goes only to the server's log.
import { z } from 'zod';
import { firstIssue } from '../../contracts/zod-issues';
import { ConflictError, NotFoundError, RefusedError } from '../db/errors';

export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function jsonError(
  status: number,
  message: string,
  code?: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return Response.json(
    { error: { message, ...(code ? { code } : {}), ...extra } },
    { status, headers: { 'cache-control': 'no-store', ...headers } },
  );
}

export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError)
    return jsonError(error.status, error.message, error.code, error.extra, error.headers);
  if (error instanceof z.ZodError) {
    return jsonError(422, firstIssue(error), 'invalid-input');
  }
  if (error instanceof NotFoundError) return jsonError(404, 'Not found', 'not-found');
  // Not allowed now (the timeline, a running evaluation): the message says why and what to do.
  if (error instanceof RefusedError) return jsonError(409, error.message, error.code);
  if (error instanceof ConflictError) return jsonError(409, error.message, 'conflict');
  console.error('web: route failed:', error);
  return jsonError(500, 'The server failed; the error was logged.', 'internal');
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
