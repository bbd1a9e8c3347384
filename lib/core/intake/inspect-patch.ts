// Intake's checks on the patch text alone: the web app runs them before it stores a submission, a
// runner before it applies the patch (runner/intake), so both refuse the same patches alike.
import { formatByteSize } from '../../../contracts';
import { parsePatch, type ParsedPatch } from './parse-patch';
import { IntakeRejectionError, type IntakeRejection } from './reasons';
import { validatePatch, type IntakeRules, type ValidatedPatch } from './validate-patch';

export interface InspectedPatch {
  ok: true;
  patch: ParsedPatch;
  validated: ValidatedPatch;
}

/** The patch as bytes: sizes are counted in bytes, as the manifest's limit is. */
export function patchBuffer(patchText: Buffer | string): Buffer {
  return typeof patchText === 'string' ? Buffer.from(patchText, 'utf8') : patchText;
}

export function tooLarge(bytes: Buffer, limit: number): IntakeRejection | undefined {
  if (bytes.length <= limit) return undefined;
  return {
    ok: false,
    reason: 'too-large',
    message: `the patch is ${formatByteSize(bytes.length)} (${bytes.length} bytes); the limit is ${formatByteSize(limit)}`,
  };
}

/**
 * Everything intake decides without touching the disk: size (before parsing), format, paths and
 * rules. Whether the patch applies is applyParsedPatch's question.
 */
export function inspectPatch(
  patchText: Buffer | string,
  rules: IntakeRules & { patchBytes: number },
): InspectedPatch | IntakeRejection {
  const bytes = patchBuffer(patchText);
  const oversized = tooLarge(bytes, rules.patchBytes);
  if (oversized) return oversized;
  try {
    const patch = parsePatch(bytes, { knownFiles: rules.templateFiles });
    return { ok: true, patch, validated: validatePatch(patch, rules) };
  } catch (error) {
    if (error instanceof IntakeRejectionError) return error.toRejection();
    throw error;
  }
}
