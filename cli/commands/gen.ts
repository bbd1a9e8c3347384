// `perfjudge gen <challenge>`: writes a challenge's generated input (deterministic from seed and size).
import type { Command } from 'commander';
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { parseByteSize } from '../../contracts';
import {
  challengeCode,
  hasChallengeCode,
  type ChallengeCode,
} from '../../lib/core/challenge/challenge-code';
import { resolveChallenge } from '../challenge-args';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';

interface GenOptions {
  size?: string;
  seed?: string;
  out?: string;
  stats?: boolean;
  rareSeparators?: boolean;
}

/** Writes all of `chunk` to a file descriptor (writeSync may write less than asked). */
function writeAll(fd: number, chunk: Uint8Array): void {
  let offset = 0;
  while (offset < chunk.length) offset += writeSync(fd, chunk, offset, chunk.length - offset);
}

/** Writes to stdout honouring back-pressure; the chunk is copied because its buffer is reused. */
function writeStdout(chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(Buffer.from(chunk), (error) => (error ? reject(error) : resolve()));
  });
}

/** A reader that went away (`| head`) ends the output early; that is not a failure. */
function isBrokenPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
}

/** Bytes and SHA-256 of every input, with the challenge's own figures (wordcount: words) between. */
function statsCollector(extra: ReturnType<NonNullable<ChallengeCode['inputStats']>> | undefined) {
  const hash = createHash('sha256');
  let bytes = 0;
  return {
    update(chunk: Uint8Array): void {
      hash.update(chunk);
      bytes += chunk.length;
      extra?.update(chunk);
    },
    report(): string {
      const lines = [
        `bytes: ${bytes}`,
        ...(extra?.finish() ?? []),
        `sha256: ${hash.digest('hex')}`,
      ];
      return `${lines.join('\n')}\n`;
    },
  };
}

export function registerGenCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('gen')
    .description(
      "Generate a challenge's input: the same seed and size give the same bytes on any machine.",
    )
    .argument('<challenge>', 'challenge slug (e.g. wordcount) or path to a challenge folder')
    .option(
      '--size <size>',
      "exact size in bytes or with a unit, e.g. 256MiB (default: the manifest's public input)",
    )
    .option('--seed <seed>', "any string (default: the manifest's public input seed)")
    .option('--out <file>', 'file to write; "-" or no --out writes to stdout')
    .option(
      '--stats',
      'print bytes, words, distinct words and SHA-256 (stderr when data goes to stdout)',
    )
    .option('--rare-separators', 'also emit \\r\\n line ends and rare \\v and \\f')
    .action(async (challenge: string, options: GenOptions) => {
      const { dir, manifest } = await resolveChallenge(challenge);
      if (!hasChallengeCode(dir))
        throw new UsageError(`challenge "${manifest.slug}" has no input generator (code.ts)`);
      const code = await challengeCode(dir);
      let sizeBytes = manifest.inputs.public.size;
      if (options.size !== undefined) {
        const parsed = parseByteSize(options.size);
        if (parsed === undefined) {
          throw new UsageError(
            `--size: "${options.size}" is not a size (examples: 1048576, 64KiB, 256MiB)`,
          );
        }
        sizeBytes = parsed;
      }
      const seed = options.seed ?? manifest.inputs.public.seed;
      if (seed.length === 0) throw new UsageError('--seed: must not be empty');
      const toStdout = options.out === undefined || options.out === '-';
      const stats = options.stats ? statsCollector(code.inputStats?.()) : undefined;
      const generation = {
        sizeBytes,
        seed,
        rareSeparators: options.rareSeparators ?? manifest.inputs.rareSeparators,
      };
      if (toStdout) {
        // The stream also emits the error it passes to the write callback; without a listener
        // that event would crash the process.
        const ignore = (): void => {};
        process.stdout.on('error', ignore);
        try {
          for (const chunk of code.inputChunks(generation)) {
            stats?.update(chunk);
            await writeStdout(chunk);
          }
        } catch (error) {
          if (!isBrokenPipe(error)) throw error;
          setExitCode(0);
          return;
        } finally {
          process.stdout.off('error', ignore);
        }
      } else {
        let fd: number;
        try {
          fd = openSync(options.out!, 'w');
        } catch (error) {
          throw new UsageError(`--out: cannot write ${options.out}: ${(error as Error).message}`);
        }
        try {
          for (const chunk of code.inputChunks(generation)) {
            writeAll(fd, chunk);
            stats?.update(chunk);
          }
        } finally {
          closeSync(fd);
        }
      }
      if (stats) {
        (toStdout ? process.stderr : process.stdout).write(stats.report());
      }
      setExitCode(0);
    });
}
