// Errors of the data-access layer that callers map to their own answers (404, 409, unrecoverable job).
import { AppError } from '../../../contracts';
export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  readonly code = 'not-found' as const;
}

/** The request contradicts what is stored (e.g. a changed manifest under an existing version). */
export class ConflictError extends AppError {
  override name = 'ConflictError';
  readonly code = 'conflict' as const;
}

/** A judging result that cannot belong to the judging it was delivered for: retrying will not help. */
export class InvalidResultError extends AppError {
  override name = 'InvalidResultError';
  readonly code = 'invalid-result' as const;
}

/**
 * Not allowed now (the deadline passed, an evaluation is running, the submission is not accepted):
 * the message says why in words a contestant or organizer can act on; the code names the rule.
 */
export class RefusedError extends AppError {
  override name = 'RefusedError';
  readonly code = 'refused' as const;
  constructor(
    message: string,
    /** Which rule refused it (e.g. 'before-deadline'), for clients that act on it. */
    readonly rule: string,
  ) {
    super(message);
  }
}
