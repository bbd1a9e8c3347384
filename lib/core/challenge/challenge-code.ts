// The code a challenge package brings besides its files: its input generator and its independent
// reference implementation. Each package exports one ChallengeCode as `code` from
// challenges/<slug>/code.ts; the judge finds it by the folder (a new challenge is a new folder, no
// registry to edit) and checks what it exports before using it. The core never imports a challenge:
// the challenges import this module's types. `perfjudge manifest <slug>` checks the code with the
// rest of the package's contract (lib/core/challenge/challenge-package.ts).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { InvalidChallengeError, describeIssues, isSlug } from '../../../contracts';
import { challengeFolder, CHALLENGES_DIR } from './load-manifest';

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

/**
 * The files a challenge's code may be in, first found wins: its TypeScript source, or the compiled
 * copy the packed CLI carries (scripts/pack-cli.ts), which runs without a TypeScript loader.
 */
const CHALLENGE_CODE_FILES = ['code.ts', 'code.mjs'] as const;

const aFunction = z.custom<(...args: never[]) => unknown>(
  (value) => typeof value === 'function',
  'must be a function',
);
/** What a challenge's code module must export; checked on load, so a mistake names the field. */
const codeModuleSchema = z.object({
  code: z.object({
    generatorVersion: z.number().int().nonnegative(),
    inputChunks: aFunction,
    writeReferenceOutput: aFunction,
    referenceOutputSha256: aFunction,
    inputStats: aFunction.optional(),
  }),
});

/** The challenge's code file (challenges/<slug>/code.ts, or a folder given as a path), if it has one. */
export function challengeCodeFile(slugOrDir: string): string | undefined {
  const dir = challengeFolder(slugOrDir);
  // Looked up at run time: the web app's build must not trace the whole project from here.
  return CHALLENGE_CODE_FILES.map((name) => path.join(dir, name)).find((file) =>
    existsSync(/* turbopackIgnore: true */ file),
  );
}

export function hasChallengeCode(slugOrDir: string): boolean {
  return challengeCodeFile(slugOrDir) !== undefined;
}

/** The slugs of the folders under challenges/ that bring code, sorted. */
export function challengesWithCode(): string[] {
  if (!existsSync(CHALLENGES_DIR)) return [];
  return readdirSync(CHALLENGES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isSlug(entry.name))
    .map((entry) => entry.name)
    .filter((slug) => hasChallengeCode(slug))
    .sort();
}

const loaded = new Map<string, Promise<ChallengeCode>>();

/** The challenge's ChallengeCode, loaded from its folder once per process. */
export function challengeCode(slugOrDir: string): Promise<ChallengeCode> {
  const file = challengeCodeFile(slugOrDir);
  if (!file)
    return Promise.reject(
      new InvalidChallengeError(
        `challenge "${slugOrDir}" has no generator or reference implementation: export \`code\` ` +
          `(a ChallengeCode) from ${path.join(challengeFolder(slugOrDir), 'code.ts')}`,
      ),
    );
  let code = loaded.get(file);
  if (!code) {
    code = loadCodeModule(file);
    loaded.set(file, code);
  }
  return code;
}

/**
 * Set by bin/perfjudge.mjs when the CLI runs pre-bundled, without a TypeScript loader: imports a
 * .ts module by bundling it too (bin/start-bundle.mjs).
 */
const IMPORT_TYPESCRIPT = Symbol.for('perfjudge.importTypeScript');

async function loadCodeModule(file: string): Promise<ChallengeCode> {
  // By path at run time, never bundled with its caller: the web app's build, vitest and the CLI's
  // bundles leave it to Node (with tsx's loader, the start bundle's hook above, or the packed
  // CLI's compiled code.mjs).
  const importTypeScript = (globalThis as Record<symbol, unknown>)[IMPORT_TYPESCRIPT] as
    ((file: string) => Promise<unknown>) | undefined;
  const module: unknown =
    file.endsWith('.ts') && importTypeScript
      ? await importTypeScript(file)
      : await import(/* webpackIgnore: true */ /* @vite-ignore */ pathToFileURL(file).href);
  const parsed = codeModuleSchema.safeParse(module);
  if (!parsed.success)
    throw new InvalidChallengeError(
      `${file} must export \`code\`, a ChallengeCode:\n${describeIssues(parsed.error)}`,
    );
  // The module's own object (the parsed copy would drop nothing it needs, but keeps no identity).
  return (module as { code: ChallengeCode }).code;
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
async function writeChunksToFile(
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
