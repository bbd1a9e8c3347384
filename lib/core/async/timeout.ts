// The one timeout helper: race a promise against a timer that is always cleared. The promise itself
// keeps running after a timeout (a promise cannot be cancelled); callers make that harmless.
import { AppError } from '../../../contracts';
export class TimeoutError extends AppError {
  override name = 'TimeoutError';
  readonly code = 'timeout' as const;
}

/** Rejects with `onTimeout()` (default: a TimeoutError) when `promise` has not settled within `ms`. */
export async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error = () => new TimeoutError(`no answer within ${ms} ms`),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Best effort, for shutdown: the promise's value, or undefined once `ms` have passed. */
export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  try {
    return await withTimeout(promise, ms);
  } catch (error) {
    if (error instanceof TimeoutError) return undefined;
    throw error;
  }
}
