// The commands a contestant's machine needs. The packaged CLI (packages/cli, `npm run pack:cli`)
// registers only these, so it carries no queue, database or web code.
import type { Command } from 'commander';
import { registerDoctorCommand } from './doctor';
import { registerGenCommand } from './gen';
import { registerJudgeCommand } from './judge';
import { registerManifestCommand } from './manifest';
import { registerReferenceCommand } from './reference';
import { registerSelectCommand } from './select';
import type { SetExitCode } from './set-exit-code';
import { registerStatusCommand } from './status';
import { registerSubmitCommand } from './submit';

export function registerContestantCommands(program: Command, setExitCode: SetExitCode): void {
  registerDoctorCommand(program, setExitCode);
  registerGenCommand(program, setExitCode);
  registerJudgeCommand(program, setExitCode);
  registerManifestCommand(program, setExitCode);
  registerReferenceCommand(program, setExitCode);
  registerSubmitCommand(program, setExitCode);
  registerStatusCommand(program, setExitCode);
  registerSelectCommand(program, setExitCode);
}
