// `perfjudge manifest <challenge>`: checks a challenge folder against the package contract (the
// manifest, the files it names, the harness's executable, the edge cases, the registered code;
// lib/core/challenge/challenge-package.ts) and prints the manifest resolved.
import type { Command } from 'commander';
import { checkChallengePackage } from '../../lib/core/challenge/challenge-package';
import { resolveChallenge } from '../challenge-args';
import type { SetExitCode } from '.';

export function registerManifestCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('manifest')
    .description(
      'Check a challenge folder (manifest, template, harness, tests, generator and ' +
        'reference) and print the manifest with sizes in bytes and defaults filled in.',
    )
    .argument('<challenge>', 'challenge slug (e.g. wordcount) or path to a challenge folder')
    .action(async (challenge: string) => {
      const loaded = await resolveChallenge(challenge);
      await checkChallengePackage(loaded);
      process.stdout.write(`${JSON.stringify(loaded.manifest, null, 2)}\n`);
      setExitCode(0);
    });
}
