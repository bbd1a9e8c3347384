// Registers every sub-command; each lives in its own file and sets the exit code it wants.
import type { Command } from 'commander';
import { registerContestantCommands } from './contestant';
import { registerFinalCommand } from './final';
import { registerRepeatCommand } from './repeat';
import { registerReconcileCommand } from './reconcile';
import { registerRunCommand } from './run';
import { registerRunnerCommand } from './runner';
import { registerScorerCommand } from './scorer';
import type { SetExitCode } from './set-exit-code';

export type { SetExitCode } from './set-exit-code';

export function registerCommands(program: Command, setExitCode: SetExitCode): void {
  registerContestantCommands(program, setExitCode);
  registerRunCommand(program, setExitCode);
  registerRunnerCommand(program, setExitCode);
  registerReconcileCommand(program, setExitCode);
  registerScorerCommand(program, setExitCode);
  registerFinalCommand(program, setExitCode);
  registerRepeatCommand(program, setExitCode);
}
