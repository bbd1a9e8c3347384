// The intake stage of judging: size check, parse, validate against the challenge's rules, apply to a
// copy of the template. A contestant's fault is a typed rejection; a platform fault is thrown.
import type { Manifest } from '../../contracts';
import { formatByteSize } from '../../contracts';
import { applyParsedPatch, listFiles, type GitOptions } from './apply-patch';
import { parsePatch, type ParsedPatch } from './parse-patch';
import { IntakeRejectionError, type IntakeRejection } from './reasons';
import type { IntakeResult } from './result';
import { validatePatch, type IntakeRules, type ValidatedPatch } from './validate-patch';

export type IntakeManifest = Pick<
  Manifest,
  'editableFiles' | 'allowedNewFiles' | 'protectedPaths'
> & {
  limits: Pick<Manifest['limits'], 'patchBytes'>;
};

export interface IntakeChallenge {
  manifest: IntakeManifest;
  templateDir: string;
  /** The harness's files are protected too, whatever protectedPaths says. */
  harnessDir?: string;
}

export interface IntakeOptions extends GitOptions {
  patchText: Buffer | string;
  challenge: IntakeChallenge;
  /** Where the patched template is written; must not exist or be empty. */
  destDir: string;
}

export interface InspectedPatch {
  ok: true;
  patch: ParsedPatch;
  validated: ValidatedPatch;
}

function toBytes(patchText: Buffer | string): Buffer {
  return typeof patchText === 'string' ? Buffer.from(patchText, 'utf8') : patchText;
}

function tooLarge(bytes: Buffer, limit: number): IntakeRejection | undefined {
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
  const bytes = toBytes(patchText);
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

export async function intakePatch(options: IntakeOptions): Promise<IntakeResult> {
  const { challenge, destDir } = options;
  const { manifest } = challenge;
  const bytes = toBytes(options.patchText);
  // Before anything else touches the text or the disk.
  const oversized = tooLarge(bytes, manifest.limits.patchBytes);
  if (oversized) return oversized;
  const inspected = inspectPatch(bytes, {
    patchBytes: manifest.limits.patchBytes,
    editableFiles: manifest.editableFiles,
    allowedNewFiles: manifest.allowedNewFiles,
    protectedPaths: manifest.protectedPaths,
    templateFiles: await listFiles(challenge.templateDir),
    harnessFiles: challenge.harnessDir ? await listFiles(challenge.harnessDir) : [],
  });
  if (!inspected.ok) return inspected;
  const { patch, validated } = inspected;
  try {
    await applyParsedPatch(patch, {
      templateDir: challenge.templateDir,
      destDir,
      expectedFiles: validated.finalFiles,
      ...(options.gitBinary !== undefined ? { gitBinary: options.gitBinary } : {}),
      ...(options.pathEnv !== undefined ? { pathEnv: options.pathEnv } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
  } catch (error) {
    if (error instanceof IntakeRejectionError) return error.toRejection();
    throw error;
  }
  return { ok: true, files: validated.files, format: patch.format, mails: patch.mails.length };
}
