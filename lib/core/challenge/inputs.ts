// Generated inputs and their correct outputs, cached on disk by what determines them. The files live
// in the data dir, which the sandbox never sees; a run gets only its one input, mounted read-only.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Challenge } from './load-manifest';
import { challengeCode, generateInputFile } from './challenge-code';

export interface GeneratedInput {
  path: string;
  bytes: number;
  sha256: string;
  /** Found generated already (by an earlier start or judging), not made by this call. */
  cached?: boolean;
}

export interface InputSpec {
  seed: string;
  sizeBytes: number;
  rareSeparators: boolean;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Generates (once) the input for a seed and size; concurrent callers may both generate, one rename wins. */
export async function ensureInput(
  challenge: Challenge,
  spec: InputSpec,
  dataDir: string,
): Promise<GeneratedInput> {
  const code = await challengeCode(challenge.dir);
  // The file name hides the seed: it is a hash of everything that determines the bytes.
  const key = sha256(
    JSON.stringify([
      challenge.manifest.slug,
      code.generatorVersion,
      spec.seed,
      spec.sizeBytes,
      spec.rareSeparators,
    ]),
  ).slice(0, 32);
  const dir = path.join(dataDir, 'inputs');
  const file = path.join(dir, `${key}.txt`);
  const meta = `${file}.json`;
  try {
    const known = JSON.parse(await readFile(meta, 'utf8')) as { bytes: number; sha256: string };
    return { path: file, ...known, cached: true };
  } catch {
    // Not generated yet.
  }
  await mkdir(dir, { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const made = await generateInputFile(code, temp, spec);
    await rename(temp, file);
    await writeFile(meta, JSON.stringify(made));
    return { path: file, ...made };
  } finally {
    await rm(temp, { force: true });
  }
}

/** The reference implementation's output hash for an input, cached by the input's sha256. */
export async function referenceSha256(
  challenge: Challenge,
  input: GeneratedInput,
  dataDir: string,
): Promise<string> {
  const dir = path.join(dataDir, 'expected');
  const file = path.join(dir, `${challenge.manifest.slug}-${input.sha256}.sha256`);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    // Not computed yet.
  }
  const code = await challengeCode(challenge.dir);
  const digest = await code.referenceOutputSha256(input.path);
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${digest}\n`);
  return digest;
}

/** Reads a file once so the timed runs find it in the page cache. */
export async function warmPageCache(file: string): Promise<void> {
  for await (const _chunk of createReadStream(file, { highWaterMark: 4 << 20 })) {
    // Reading is the point.
  }
}
