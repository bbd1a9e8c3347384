// `perfjudge select --server URL --token-file FILE --challenge SLUG ID`: a contestant marks which of
// their accepted submissions counts in the final evaluation (until the deadline).
// Exit 0 selected, 1 refused (not accepted, disqualified, the selection closed), 2 otherwise.
import type { Command } from 'commander';
import { TOKEN_FILE } from '../../lib/server/kit/workflow';
import { selectFinal } from '../../lib/server/submit/final-client';
import { apiFailed } from './api-failed';
import { readToken, type TokenOptions } from '../api-token';
import type { SetExitCode } from './set-exit-code';
import { DEFAULT_CHALLENGE } from '../../lib/core/challenge/default-challenge';

interface SelectCliOptions extends TokenOptions {
  server: string;
  challenge: string;
}

export function registerSelectCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('select')
    .description(
      'Choose which of your accepted submissions counts in the final evaluation (default: your best).\n' +
        'Exit code: 0 selected, 1 refused by the server (the reason is printed), 2 otherwise.',
    )
    .argument('<id>', 'the submission id (perfjudge submit prints it)')
    .requiredOption('--server <url>', 'the platform, e.g. https://contest.example.org')
    .option('--token <token>', 'your API token (visible to other local users in the process list)')
    .option('--token-file <file>', `read the API token from this file (e.g. ${TOKEN_FILE})`)
    .option('-c, --challenge <slug>', 'the challenge', DEFAULT_CHALLENGE)
    .action(async (id: string, options: SelectCliOptions) => {
      const token = await readToken(options);
      try {
        await selectFinal({
          server: options.server,
          token,
          challenge: options.challenge,
          submissionId: id,
        });
        process.stdout.write(`Submission ${id} is your final one for ${options.challenge}\n`);
        setExitCode(0);
      } catch (error) {
        apiFailed(error, 'select', setExitCode);
      }
    });
}
