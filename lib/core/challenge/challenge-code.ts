// The code a challenge package brings besides its files: its input generator and its independent
// reference implementation. Each package exports one ChallengeCode from challenges/<slug>/code.ts
// and is registered below by slug (one line), so the pipeline itself stays challenge-neutral.
// `perfjudge manifest <slug>` checks the registration with the rest of the package's contract
// (lib/core/challenge/challenge-package.ts).
import { AppError } from '../../../contracts';
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';

export interface GenerateInputOptions {
  sizeBytes: number;
  seed: string;
  /** wordcount's: also emit \r\n line ends and rare \v and \f. Other generators ignore it. */
  rareSeparators?: boolean;
}

/** Figures about an input beyond its size and hash, for `perfjudge gen --stats`. */
export interface InputStatsCollector {
  update(chunk: Uint8Array): void;
  /** The report's lines, e.g. "words: 123". */
  finish(): string[];
}

export interface ChallengeCode {
  /** Bumped (with the manifest's `version`) whenever the bytes for a (seed, size) change. */
  generatorVersion: number;
  /** The input for a seed and size, in chunks: the same bytes on every machine. */
  inputChunks(options: GenerateInputOptions): Iterable<Uint8Array>;
  /** Writes the correct output for `file`, computed independently of the C++ code. */
  writeReferenceOutput(file: string, out: Writable): Promise<void>;
  /** The sha256 of the correct output for `file`. */
  referenceOutputSha256(file: string): Promise<string>;
  /** Optional extra figures for `perfjudge gen --stats`. */
  inputStats?(): InputStatsCollector;
}

/** Every challenge package with code, by slug: registering a new challenge is one line here. */
const REGISTRY: Record<string, () => Promise<{ code: ChallengeCode }>> = {
  wordcount: () => import('../../../challenges/wordcount/code'),
  maxsubarray: () => import('../../../challenges/maxsubarray/code'),
};

export class ChallengeCodeError extends AppError {
  override name = 'ChallengeCodeError';
  readonly code = 'invalid-challenge' as const;
}

export function hasChallengeCode(slug: string): boolean {
  return Object.hasOwn(REGISTRY, slug);
}

export function registeredChallengeCodes(): string[] {
  return Object.keys(REGISTRY);
}

export async function challengeCode(slug: string): Promise<ChallengeCode> {
  const load = REGISTRY[slug];
  if (!load)
    throw new ChallengeCodeError(
      `challenge "${slug}" has no generator or reference implementation registered: export ` +
        `\`code\` (a ChallengeCode) from challenges/${slug}/code.ts and add it to the registry ` +
        'in lib/core/challenge/challenge-code.ts',
    );
  return (await load()).code;
}

/** Writes a generated input to `file` (created or truncated); returns its size and sha256. */
export function generateInputFile(
  code: ChallengeCode,
  file: string,
  options: GenerateInputOptions,
): Promise<{ bytes: number; sha256: string }> {
  return writeChunksToFile(file, code.inputChunks(options));
}

/** Writes chunks to `file` (created or truncated), hashing them on the way. */
export async function writeChunksToFile(
  file: string,
  chunks: Iterable<Uint8Array>,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  const handle = await open(file, 'w');
  let bytes = 0;
  try {
    for (const chunk of chunks) {
      hash.update(chunk);
      let offset = 0;
      while (offset < chunk.length) {
        const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
        offset += bytesWritten;
      }
      bytes += chunk.length;
    }
  } finally {
    await handle.close();
  }
  return { bytes, sha256: hash.digest('hex') };
}
