/** A mistake in how the CLI was called (a bad option value, a missing file): exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
