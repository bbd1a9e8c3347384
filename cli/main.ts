// The perfjudge command line: one program, a sub-command per tool, `--help` on each.
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands';
import { UsageError } from './usage-error';

/** Exit codes: 0 success, 1 a contestant-fault verdict or failed check, 2 bad usage or a judge error. */
export async function main(argv: string[]): Promise<number> {
  const program = new Command('perfjudge')
    .description('Judge performance-tuning contests: generate inputs, build, run, judge and serve.')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  let exitCode = 0;
  registerCommands(program, (code) => {
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
