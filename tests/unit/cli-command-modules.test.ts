// `perfjudge <command>` registers only that command's module (cli/main.ts): each one must define
// exactly the command it is listed under, with the help the full program gives it, and every
// command of the full program must be listed (else it would still start, but with every module).
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCommands } from '../../cli/commands';
import { COMMAND_MODULES } from '../../cli/main';

function program(register: (program: Command, setExitCode: (code: number) => void) => void) {
  const p = new Command('perfjudge');
  register(p, () => {});
  return p;
}

describe('the CLI loads one command module per command', () => {
  const full = program(registerCommands);

  it('lists every command of the full program', () => {
    expect(Object.keys(COMMAND_MODULES).sort()).toEqual(full.commands.map((c) => c.name()).sort());
  });

  it.each(Object.keys(COMMAND_MODULES))(
    '%s alone has the help the full program gives it',
    async (name) => {
      const alone = program(await COMMAND_MODULES[name]!());
      expect(alone.commands.map((c) => c.name())).toEqual([name]);
      const inFull = full.commands.find((c) => c.name() === name)!;
      expect(alone.commands[0]!.helpInformation()).toBe(inFull.helpInformation());
      const sub = (c: Command) => c.commands.map((s) => `${s.name()}\n${s.helpInformation()}`);
      expect(sub(alone.commands[0]!)).toEqual(sub(inFull));
    },
  );
});
