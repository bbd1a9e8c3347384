// Errors of the data-access layer that callers map to their own answers (404, 409, unrecoverable job).
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

/** The request contradicts what is stored (e.g. a changed manifest under an existing version). */
export class ConflictError extends Error {
  override name = 'ConflictError';
}

/** A judging result that cannot belong to the judging it was delivered for: retrying will not help. */
export class InvalidResultError extends Error {
  override name = 'InvalidResultError';
}

/**
 * Not allowed now (the deadline passed, an evaluation is running, the submission is not accepted):
 * the message says why in words a contestant or organizer can act on; the code names the rule.
 */
export class RefusedError extends Error {
  override name = 'RefusedError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
