// What a contestant downloads from a challenge page: the template as .tar.gz or .zip (the files
// they edit, plus the contestants' README), and the public small input, generated once and cached.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { TarArchive, ZipArchive } from 'archiver';
import type { Challenge } from '../challenge/load-manifest';
import { env } from '../config/env';
import { ensureInput, type GeneratedInput } from '../../runner/judge/inputs';

export type ArchiveFormat = 'tar.gz' | 'zip';

async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = path.posix.join(prefix, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(dir, rel)));
    else if (entry.isFile()) out.push(rel);
  }
  return out.sort();
}

/** `<slug>-template.<ext>`: one folder `<slug>/` holding the template files and README.md. */
export function archiveName(slug: string, format: ArchiveFormat): string {
  return `${slug}-template.${format}`;
}

export async function templateArchive(
  challenge: Challenge,
  format: ArchiveFormat,
): Promise<ReadableStream<Uint8Array>> {
  const slug = challenge.manifest.slug;
  const archive =
    format === 'zip'
      ? new ZipArchive({ zlib: { level: 9 } })
      : new TarArchive({ gzip: true, gzipOptions: { level: 9 } });
  // Fixed dates, so the same template always gives the same archive bytes.
  const date = new Date('2026-01-01T00:00:00Z');
  for (const file of await filesUnder(challenge.templateDir))
    archive.append(await readFile(path.join(challenge.templateDir, file)), {
      name: `${slug}/${file}`,
      date,
      mode: 0o644,
    });
  archive.append(await readFile(path.join(challenge.dir, challenge.manifest.readme)), {
    name: `${slug}/README.md`,
    date,
    mode: 0o644,
  });
  void archive.finalize();
  return Readable.toWeb(archive) as ReadableStream<Uint8Array>;
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
