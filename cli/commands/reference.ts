// `perfjudge reference <challenge> <input>`: prints the reference implementation's output for an input.
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import {
  challengeCode,
  challengesWithCode,
  hasChallengeCode,
} from '../../lib/core/challenge/challenge-code';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';

export function registerReferenceCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('reference')
    .description("Print the reference implementation's exact output for an input file.")
    .argument('<challenge>', `challenge slug (${challengesWithCode().join(', ')})`)
    .argument('<input>', 'input file')
    .option('--sha256', 'print the SHA-256 of the output instead of the output')
    .action(async (challenge: string, input: string, options: { sha256?: boolean }) => {
      if (!hasChallengeCode(challenge))
        throw new UsageError(
          `no reference implementation for challenge "${challenge}" (available: ${challengesWithCode().join(', ')})`,
        );
      const reference = await challengeCode(challenge);
      const info = await stat(input).catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(
          error.code === 'ENOENT'
            ? `input file not found: ${input}`
            : `cannot read input ${input}: ${error.message}`,
        );
      });
      if (!info.isFile()) throw new UsageError(`input is not a regular file: ${input}`);
      if (options.sha256) {
        process.stdout.write(`${await reference.referenceOutputSha256(input)}\n`);
      } else {
        // A reader that stops early (`| head`) is not an error. The listener stays: a late EPIPE
        // from a write in flight would otherwise crash the process; write errors still reject.
        process.stdout.on('error', () => {});
        try {
          await reference.writeReferenceOutput(input, process.stdout);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
        }
      }
      setExitCode(0);
    });
}
