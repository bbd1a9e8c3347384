// The perfjudge command line: one program, a sub-command per tool, `--help` on each.
import { runProgram, type RegisterCommands } from './program';

/**
 * Each sub-command's own module, so `perfjudge <command>` loads that command's code alone: every
 * command's (the judge, BullMQ and ioredis, zod, yaml: about 700 modules through tsx's loader) made
 * each start about 2 CPU s, `status` 1.0 now (docs/CONTRIBUTING.md, "Where CI's time goes"). Any
 * other first argument (none, `--help`, `help`, a mistyped command) registers them all, so the
 * program's help and its suggestions are unchanged.
 */
export const COMMAND_MODULES: Record<string, () => Promise<RegisterCommands>> = {
  doctor: async () => (await import('./commands/doctor')).registerDoctorCommand,
  final: async () => (await import('./commands/final')).registerFinalCommand,
  gen: async () => (await import('./commands/gen')).registerGenCommand,
  judge: async () => (await import('./commands/judge')).registerJudgeCommand,
  manifest: async () => (await import('./commands/manifest')).registerManifestCommand,
  reconcile: async () => (await import('./commands/reconcile')).registerReconcileCommand,
  reference: async () => (await import('./commands/reference')).registerReferenceCommand,
  repeat: async () => (await import('./commands/repeat')).registerRepeatCommand,
  run: async () => (await import('./commands/run')).registerRunCommand,
  runner: async () => (await import('./commands/runner')).registerRunnerCommand,
  scorer: async () => (await import('./commands/scorer')).registerScorerCommand,
  select: async () => (await import('./commands/select')).registerSelectCommand,
  status: async () => (await import('./commands/status')).registerStatusCommand,
  submit: async () => (await import('./commands/submit')).registerSubmitCommand,
};

/** Exit codes: 0 success, 1 a contestant-fault verdict or failed check, 2 bad usage or a judge error. */
export async function main(argv: string[]): Promise<number> {
  const name = argv[2];
  const one = name !== undefined && Object.hasOwn(COMMAND_MODULES, name);
  const register = one
    ? await COMMAND_MODULES[name]!()
    : (await import('./commands')).registerCommands;
  return runProgram(argv, register);
}
