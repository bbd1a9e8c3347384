// The intake stage of judging: size check, parse, validate against the challenge's rules, apply to a
// copy of the template. A contestant's fault is a typed rejection; a platform fault is thrown.
import type { Manifest } from '../../contracts';
import {
  inspectPatch,
  IntakeRejectionError,
  listFiles,
  patchBuffer,
  tooLarge,
  type IntakeResult,
} from '../../lib/core/intake';
import { applyParsedPatch, type GitOptions } from './apply-patch';

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

export async function intakePatch(options: IntakeOptions): Promise<IntakeResult> {
  const { challenge, destDir } = options;
  const { manifest } = challenge;
  const bytes = patchBuffer(options.patchText);
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
