// The perfjudge command line: one program, a sub-command per tool, `--help` on each.
import { registerCommands } from './commands';
import { runProgram } from './program';

/** Exit codes: 0 success, 1 a contestant-fault verdict or failed check, 2 bad usage or a judge error. */
export function main(argv: string[]): Promise<number> {
  return runProgram(argv, registerCommands);
}
