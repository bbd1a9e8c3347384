// Registers every sub-command; each lives in its own file and sets the exit code it wants.
import type { Command } from 'commander';
import { registerDoctorCommand } from './doctor';
import { registerGenCommand } from './gen';
import { registerJudgeCommand } from './judge';
import { registerManifestCommand } from './manifest';
import { registerReconcileCommand } from './reconcile';
import { registerReferenceCommand } from './reference';
import { registerRunCommand } from './run';
import { registerRunnerCommand } from './runner';
import { registerScorerCommand } from './scorer';
import { registerSubmitCommand } from './submit';

export type SetExitCode = (code: number) => void;

export function registerCommands(program: Command, setExitCode: SetExitCode): void {
  registerDoctorCommand(program, setExitCode);
  registerGenCommand(program, setExitCode);
  registerJudgeCommand(program, setExitCode);
  registerManifestCommand(program, setExitCode);
  registerReferenceCommand(program, setExitCode);
  registerRunCommand(program, setExitCode);
  registerRunnerCommand(program, setExitCode);
  registerReconcileCommand(program, setExitCode);
  registerScorerCommand(program, setExitCode);
  registerSubmitCommand(program, setExitCode);
}
