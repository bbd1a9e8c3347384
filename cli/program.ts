// The perfjudge program around a set of sub-commands: parsing, `--help` on each, exit codes. The
// full CLI (cli/main.ts) and the packaged contestant CLI (packages/cli/entry.ts) share it.
import { Command, CommanderError } from 'commander';
import type { SetExitCode } from './commands/set-exit-code';
import { UsageError } from './usage-error';

export type RegisterCommands = (program: Command, setExitCode: SetExitCode) => void;

/** Exit codes: 0 success, 1 a contestant-fault verdict or failed check, 2 bad usage or a judge error. */
export async function runProgram(
  argv: string[],
  register: RegisterCommands,
  description = 'Judge performance-tuning contests: generate inputs, build, run, judge and serve.',
): Promise<number> {
  endQuietlyOnClosedPipe();
  const program = new Command('perfjudge')
    .description(description)
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  let exitCode = 0;
  register(program, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      process.stderr.write(`perfjudge: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`perfjudge: ${(error as Error).message ?? String(error)}\n`);
    return 2;
  }
}

/**
 * A reader that stops early (`perfjudge status --help | head -1`) closes the pipe: the command ends
 * quietly, as Unix tools do, instead of with a stack trace for the unhandled EPIPE.
 */
let pipeGuarded = false;
function endQuietlyOnClosedPipe(): void {
  if (pipeGuarded) return; // once per process: tests run many commands in one
  pipeGuarded = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
}
