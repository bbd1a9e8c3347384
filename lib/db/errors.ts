// Errors of the data-access layer that callers map to their own answers (404, 409, unrecoverable job).
import { AppError } from '../../contracts';
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
