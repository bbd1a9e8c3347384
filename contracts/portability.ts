// The portability pre-check: a Linux runner cross-compiles a submission for Windows and leaves the
// outcome in Redis, where the windows-amd runner looks before building. Validated on both sides.
import { z } from 'zod';
import { targetIdSchema, type TargetId } from './manifest';

/** Most of the compiler's output kept (its head holds the first errors). */
export const PORTABILITY_LOG_CHARS = 64 * 1024;

export const portabilityCheckSchema = z.strictObject({
  submissionId: z.string().min(1).max(64),
  round: z.number().int().nonnegative(),
  /** The target the patch was cross-compiled for. */
  target: targetIdSchema,
  ok: z.boolean(),
  /** The compiler's first error line, when it failed. */
  firstError: z.string().max(500).nullable(),
  log: z.string().max(PORTABILITY_LOG_CHARS),
  /** What compiled it: `x86_64-w64-mingw32-g++-posix …` and the mapped flags. */
  compiler: z.string().max(500),
  runnerId: z.string().min(1).max(200),
  checkedAt: z.iso.datetime(),
});
export type PortabilityCheck = z.infer<typeof portabilityCheckSchema>;

/** The Redis key of one submission round's check for one target. */
export function portabilityKey(
  prefix: string,
  submissionId: string,
  round: number,
  target: TargetId,
): string {
  return `${prefix}:portability:${submissionId}:r${round}:${target}`;
}
