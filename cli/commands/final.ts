// `perfjudge final start|status|publish|cancel --server URL --token-file FILE --challenge SLUG`: an
// organizer's final evaluation from the command line (the console's buttons, through the API).
// Exit 0 done (status --wait: the evaluation is DONE), 1 the server refused (before the deadline,
// one already running, not done yet; status --wait: FAILED or CANCELLED), 2 anything else.
import type { Command } from 'commander';
import { TOKEN_FILE } from '../../lib/server/kit/workflow';
import {
  cancelFinal,
  getFinalState,
  publishFinal,
  startFinal,
  type FinalEvaluationState,
} from '../../lib/server/submit/final-client';
import { apiFailed } from './api-failed';
import { readToken, type TokenOptions } from '../api-token';
import { formatFinalState } from '../final-view';
import { intOption } from '../option-values';
import { UsageError } from '../usage-error';
import type { SetExitCode } from './set-exit-code';

interface FinalCliOptions extends TokenOptions {
  server: string;
  challenge: string;
  json?: boolean;
  wait?: boolean;
}

interface StartCliOptions extends FinalCliOptions {
  keepSeed?: boolean;
  rounds?: string;
  spreadHosts?: boolean;
  errorRate?: string;
}

const POLL_MS = 5_000;

function withConnection(command: Command): Command {
  return command
    .requiredOption('--server <url>', 'the platform, e.g. https://contest.example.org')
    .option('--token <token>', 'your API token (visible to other local users in the process list)')
    .option('--token-file <file>', `read the API token from this file (e.g. ${TOKEN_FILE})`)
    .requiredOption('-c, --challenge <slug>', 'the challenge');
}

function errorRateOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(n > 0 && n <= 0.2))
    throw new UsageError(`--error-rate: "${value}" must be above 0 and at most 0.2`);
  return n;
}

async function follow(
  request: { server: string; token: string; challenge: string },
  print: (state: FinalEvaluationState) => void,
): Promise<FinalEvaluationState> {
  let last = '';
  for (;;) {
    const state = await getFinalState(request);
    const seen = JSON.stringify(state);
    if (seen !== last) print(state);
    last = seen;
    if (state.status !== 'RUNNING') return state;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function registerStatus(final: Command, setExitCode: SetExitCode): void {
  withConnection(final.command('status'))
    .description(
      'Print the final evaluation: rounds done per target and time left, then the ranking with places and ties.\n' +
        'Exit code: 0 printed (with --wait: DONE), 1 with --wait FAILED or CANCELLED, 2 otherwise.',
    )
    .option('--wait', 'poll until the evaluation is no longer running')
    .option('--json', 'print the evaluation as JSON')
    .action(async (options: FinalCliOptions) => {
      const token = await readToken(options);
      const request = { server: options.server, token, challenge: options.challenge };
      const print = (state: FinalEvaluationState) =>
        process.stdout.write(options.json ? `${JSON.stringify(state)}\n` : formatFinalState(state));
      try {
        const state = options.wait ? await follow(request, print) : await getFinalState(request);
        if (!options.wait) print(state);
        setExitCode(!options.wait || state.status === 'DONE' ? 0 : 1);
      } catch (error) {
        apiFailed(error, 'final status', setExitCode);
      }
    });
}

function registerStart(final: Command, setExitCode: SetExitCode): void {
  withConnection(final.command('start'))
    .description(
      'Start the final evaluation (after the deadline, or once the contest is closed).\n' +
        'Exit code: 0 started (with --wait: DONE), 1 refused or (with --wait) FAILED/CANCELLED, 2 otherwise.',
    )
    .option('--keep-seed', "time on the provisional judgings' seed instead of a fresh secret one")
    .option('--rounds <n>', 'rounds per target (each runs the baseline and every finalist once)')
    .option('--spread-hosts', "spread each target's rounds across its live runners")
    .option(
      '--error-rate <rate>',
      'family-wise error rate of the pairwise comparisons (default 0.05)',
    )
    .option('--wait', 'then follow it until it is done')
    .option('--json', 'print the answers as JSON')
    .action(async (options: StartCliOptions) => {
      const token = await readToken(options);
      const rounds = intOption(options.rounds, '--rounds', 1);
      const errorRate = errorRateOption(options.errorRate);
      const request = { server: options.server, token, challenge: options.challenge };
      try {
        const started = await startFinal({
          ...request,
          options: {
            keepProvisionalSeed: options.keepSeed,
            rounds,
            spreadAcrossHosts: options.spreadHosts,
            errorRate,
          },
        });
        process.stdout.write(
          options.json
            ? `${JSON.stringify(started)}\n`
            : `Final evaluation ${started.evaluationId} started: ${started.finalists} finalists, ${started.sessions} sessions\n`,
        );
        if (!options.wait) return setExitCode(0);
        const state = await follow(request, (s) =>
          process.stdout.write(options.json ? `${JSON.stringify(s)}\n` : formatFinalState(s)),
        );
        setExitCode(state.status === 'DONE' ? 0 : 1);
      } catch (error) {
        apiFailed(error, 'final start', setExitCode);
      }
    });
}

function registerPublish(final: Command, setExitCode: SetExitCode): void {
  withConnection(final.command('publish'))
    .description(
      'Publish the finished final evaluation: its ranking becomes the contest\u2019s result.\n' +
        'Exit code: 0 published, 1 refused (not done), 2 otherwise.',
    )
    .action(async (options: FinalCliOptions) => {
      const token = await readToken(options);
      try {
        await publishFinal({ server: options.server, token, challenge: options.challenge });
        process.stdout.write(`Final results of ${options.challenge} published\n`);
        setExitCode(0);
      } catch (error) {
        apiFailed(error, 'final publish', setExitCode);
      }
    });
}

function registerCancel(final: Command, setExitCode: SetExitCode): void {
  withConnection(final.command('cancel'))
    .description(
      'Cancel the running final evaluation. Exit code: 0 cancelled, 1 refused, 2 otherwise.',
    )
    .requiredOption('--reason <text>', 'why (the audit log keeps it)')
    .action(async (options: FinalCliOptions & { reason: string }) => {
      const token = await readToken(options);
      try {
        await cancelFinal({
          server: options.server,
          token,
          challenge: options.challenge,
          reason: options.reason,
        });
        process.stdout.write(`Final evaluation of ${options.challenge} cancelled\n`);
        setExitCode(0);
      } catch (error) {
        apiFailed(error, 'final cancel', setExitCode);
      }
    });
}

export function registerFinalCommand(program: Command, setExitCode: SetExitCode): void {
  const final = program
    .command('final')
    .description("An organizer's final evaluation: start it, follow it, publish or cancel it.");
  registerStart(final, setExitCode);
  registerStatus(final, setExitCode);
  registerPublish(final, setExitCode);
  registerCancel(final, setExitCode);
}
