// The typed outcome of intake, as zod schemas so it can join the shared result contract unchanged.
import { z } from 'zod';
import { intakeRejectionReasonSchema } from './reasons';

const PATCH_FORMATS = ['git-diff', 'format-patch', 'unified'] as const;
export const patchFormatSchema = z.enum(PATCH_FORMATS);
export type PatchFormat = z.infer<typeof patchFormatSchema>;

export const changedFileSchema = z.strictObject({
  /** Path relative to the template root after the whole patch (the new name of a rename). */
  path: z.string().min(1),
  change: z.enum(['modified', 'added', 'deleted', 'renamed']),
  /** The template path a renamed file came from. */
  from: z.string().min(1).optional(),
  /** Lines added and removed, summed over every mail that touched the file. */
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});
export type ChangedFile = z.infer<typeof changedFileSchema>;

const intakeAcceptedSchema = z.strictObject({
  ok: z.literal(true),
  files: z.array(changedFileSchema),
  format: patchFormatSchema,
  /** Mails applied in order (1 for a plain diff; a format-patch cover letter is not counted). */
  mails: z.number().int().positive(),
});

const intakeRejectionSchema = z.strictObject({
  ok: z.literal(false),
  reason: intakeRejectionReasonSchema,
  file: z.string().optional(),
  message: z.string().min(1),
});

export const intakeResultSchema = z.discriminatedUnion('ok', [
  intakeAcceptedSchema,
  intakeRejectionSchema,
]);
export type IntakeResult = z.infer<typeof intakeResultSchema>;
