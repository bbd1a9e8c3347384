// Why intake refuses a patch: a closed set of codes, each rejection naming the file and the reason.
import { AppError } from '../../../contracts';
import { z } from 'zod';

export const INTAKE_REJECTION_REASONS = [
  /** Larger than the manifest's limits.patchBytes (checked before parsing). */
  'too-large',
  /** Nothing but whitespace. */
  'empty',
  /** Text without a single diff section git could apply. */
  'not-a-patch',
  /** Looks like a patch but is damaged: hunk counts wrong, truncated, inconsistent headers. */
  'malformed',
  /** A binary change (`GIT binary patch`, `Binary files … differ`) or NUL bytes in a hunk. */
  'binary',
  /** A symbolic link (mode 120000), in the patch or found after applying it. */
  'symlink',
  /** A submodule (mode 160000). */
  'submodule',
  /** A file mode other than 100644: `old mode`/`new mode`, an executable new file. */
  'mode-change',
  /** A path that is absolute, has `..`, `.` or empty parts, backslashes, control characters, is in `.git`, or cannot exist on Windows. */
  'unsafe-path',
  /** A path the judge owns (the manifest's protectedPaths, the harness, non-editable template files). */
  'protected-file',
  /** Neither an editable template file nor a new file matching allowedNewFiles. */
  'not-allowed',
  /** Deletes (or renames away) an editable template file, which must stay. */
  'deletes-required-file',
  /** `git apply` refused it: the context does not match the template. */
  'does-not-apply',
] as const;

export const intakeRejectionReasonSchema = z.enum(INTAKE_REJECTION_REASONS);
export type IntakeRejectionReason = z.infer<typeof intakeRejectionReasonSchema>;

export interface IntakeRejection {
  ok: false;
  reason: IntakeRejectionReason;
  /** The offending path relative to the template root, when one file is to blame. */
  file?: string;
  /** For the contestant: names the file and says what is wrong. */
  message: string;
}

/** Thrown inside intake and turned into an IntakeRejection at its edge; never escapes intakePatch. */
export class IntakeRejectionError extends AppError {
  override name = 'IntakeRejectionError';
  readonly code = 'rejected' as const;
  constructor(
    readonly reason: IntakeRejectionReason,
    message: string,
    readonly file?: string,
  ) {
    super(message);
  }

  toRejection(): IntakeRejection {
    return {
      ok: false,
      reason: this.reason,
      ...(this.file !== undefined ? { file: this.file } : {}),
      message: this.message,
    };
  }
}

export function reject(reason: IntakeRejectionReason, message: string, file?: string): never {
  throw new IntakeRejectionError(reason, message, file);
}
