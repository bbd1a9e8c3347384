// What a contestant downloads from a challenge page: the contestant kit as .tar.gz or .zip
// (lib/server/kit/contestant-kit.ts: template, harness, tests, public input, build and check scripts,
// README), and the public small input on its own, generated once and cached.
import type { Challenge } from '../../core/challenge/load-manifest';
import { env } from '../../core/config/env';
import { kitArchive } from '../kit/contestant-kit';
import { kitArchiveName, type KitArchiveFormat } from '../kit/workflow';
import { ensureInput, type GeneratedInput } from '../../core/challenge/inputs';

export type ArchiveFormat = KitArchiveFormat;

/** `<slug>-kit.<ext>`: one folder `<slug>/` holding the kit. */
export function archiveName(slug: string, format: ArchiveFormat): string {
  return kitArchiveName(slug, format);
}

/** The kit archive on disk, built on the first request for this content and server URL. */
export async function kitArchiveFile(
  challenge: Challenge,
  format: ArchiveFormat,
): Promise<{ path: string; name: string; bytes: number }> {
  const input = await publicInput(challenge);
  return kitArchive(challenge, format, {
    server: env().PERFJUDGE_PUBLIC_URL,
    publicInput: { path: input.path, sha256: input.sha256 },
    dataDir: env().PERFJUDGE_DATA_DIR,
  });
}

/** The public input, exactly as the test stage uses it (same seed and size). */
export function publicInput(challenge: Challenge): Promise<GeneratedInput> {
  const { public: spec, rareSeparators } = challenge.manifest.inputs;
  return ensureInput(
    challenge,
    { seed: spec.seed, sizeBytes: spec.size, rareSeparators },
    env().PERFJUDGE_DATA_DIR,
  );
}
