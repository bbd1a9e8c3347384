// The one error model. Every error the platform raises on purpose has a code, and every code says
// whose fault it is: 'platform' (ours: logged, retried where it can be, never shown as a
// contestant's failure), 'contestant' (the patch's: final), 'user' (a request to fix: its message
// is for the person who sent it). Which HTTP status a code answers with is chosen once, at the web
// edge (lib/server/web/api-errors.ts HTTP_STATUS); nothing below the edge knows about HTTP.
export type Fault = 'platform' | 'contestant' | 'user';

export const ERROR_CODES = {
  'invalid-input': 'user',
  'invalid-json': 'user',
  'unsupported-media-type': 'user',
  'too-large': 'user',
  unauthorized: 'user',
  forbidden: 'user',
  'not-found': 'user',
  'unknown-challenge': 'user',
  conflict: 'user',
  closed: 'user',
  quota: 'user',
  burst: 'user',
  /** Refused for a reason its message gives (a console action, a CLI call). */
  refused: 'user',
  usage: 'user',
  rejected: 'contestant',
  config: 'platform',
  'invalid-challenge': 'platform',
  unavailable: 'platform',
  busy: 'platform',
  timeout: 'platform',
  'judge-error': 'platform',
  'invalid-result': 'platform',
  cancelled: 'platform',
  internal: 'platform',
} as const satisfies Record<string, Fault>;
export type ErrorCode = keyof typeof ERROR_CODES;

/** The base of every error raised on purpose: a subclass names its code. */
export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  /** Whose fault it is. */
  get fault(): Fault {
    return ERROR_CODES[this.code];
  }
}

// One class per code that several modules raise; a module keeps a class of its own only when it
// carries more than a message (CachegrindError's kind, RefusedError's rule) or a caller must tell
// it apart from other errors of its code (PlatformError, QueueTimeoutError).

/** The host or a service cannot do it now (no sandbox, no platform, perf, a start step): ours. */
export class UnavailableError extends AppError {
  override name = 'UnavailableError';
  readonly code = 'unavailable' as const;
}

/** A challenge package that breaks its contract (manifest, code.ts, edge cases, layout). */
export class InvalidChallengeError extends AppError {
  override name = 'InvalidChallengeError';
  readonly code = 'invalid-challenge' as const;
}

/** 'platform' for anything not raised on purpose (a bug, a failed dependency). */
export function faultOf(error: unknown): Fault {
  return error instanceof AppError ? error.fault : 'platform';
}
