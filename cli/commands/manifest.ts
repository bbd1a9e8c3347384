// `perfjudge manifest <challenge>`: validates a challenge's manifest and prints it resolved.
import type { Command } from 'commander';
import { loadChallenge } from '../../lib/challenge/load-manifest';
import type { SetExitCode } from '.';

export function registerManifestCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('manifest')
    .description(
      'Validate a challenge manifest and print it with sizes in bytes and defaults filled in.',
    )
    .argument('<challenge>', 'challenge slug (e.g. wordcount) or path to a challenge folder')
    .action(async (challenge: string) => {
      const loaded = await loadChallenge(challenge);
      process.stdout.write(`${JSON.stringify(loaded.manifest, null, 2)}\n`);
      setExitCode(0);
    });
}
