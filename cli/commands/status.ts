// `perfjudge status --server URL --token-file FILE [--wait] ID`: a submission's state (each target's
// stage, or its verdict and speedup); with --wait, followed live until the verdict.
// Exit 0 printed (with --wait: ACCEPTED), 1 with --wait a verdict that is the patch's fault, 2 otherwise.
import type { Command } from 'commander';
import { TOKEN_FILE } from '../../lib/server/kit/workflow';
import { getSubmissionState } from '../../lib/server/submit/status-client';
import { ApiClientError } from '../../lib/server/submit/api-client';
import { apiFailed } from './api-failed';
import { readToken, type TokenOptions } from '../api-token';
import { followToVerdict } from '../follow-submission';
import { formatState } from '../submission-view';
import type { SetExitCode } from './set-exit-code';

interface StatusCliOptions extends TokenOptions {
  server: string;
  wait?: boolean;
  json?: boolean;
}

export function registerStatusCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('status')
    .description(
      "Print a submission's state: each target's stage while it is judged, then its verdict and speedup.\n" +
        "Exit code: 0 printed (with --wait: ACCEPTED), 1 with --wait a verdict that is the patch's fault, 2 otherwise.",
    )
    .addHelpText(
      'after',
      `\nExample:\n  perfjudge status --server https://contest.example.org --token-file ${TOKEN_FILE} --wait ID\n`,
    )
    .argument('<id>', 'the submission id (perfjudge submit prints it)')
    .requiredOption('--server <url>', 'the platform, e.g. https://contest.example.org')
    .option('--token <token>', 'your API token (visible to other local users in the process list)')
    .option('--token-file <file>', `read the API token from this file (e.g. ${TOKEN_FILE})`)
    .option('--wait', 'follow the judging (a progress line per target) until the verdict')
    .option('--json', 'print the state as JSON')
    .action(async (id: string, options: StatusCliOptions) => {
      const token = await readToken(options);
      let pageUrl: string;
      try {
        pageUrl = new URL(
          `submissions/${id}`,
          options.server.endsWith('/') ? options.server : `${options.server}/`,
        ).href;
      } catch {
        throw new ApiClientError('unreachable', `--server: "${options.server}" is not a URL`);
      }
      try {
        if (options.wait) {
          setExitCode(
            await followToVerdict({
              server: options.server,
              token,
              submissionId: id,
              pageUrl,
              json: options.json,
            }),
          );
          return;
        }
        const state = await getSubmissionState({ server: options.server, token, submissionId: id });
        process.stdout.write(
          options.json ? `${JSON.stringify(state)}\n` : formatState(state, pageUrl),
        );
        setExitCode(0);
      } catch (error) {
        apiFailed(error, 'status', setExitCode);
      }
    });
}
