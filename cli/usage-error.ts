import { AppError } from '../contracts';
/** A mistake in how the CLI was called (a bad option value, a missing file): exit code 2. */
export class UsageError extends AppError {
  override name = 'UsageError';
  readonly code = 'usage' as const;
}
