// `perfjudge repeat --server URL --token-file FILE --times N [--target T] --reason R ID`: an
// organizer's "rejudge N times", N independent judgings per target beside the submission.
// Exit 0 queued, 1 refused by the server, 2 otherwise.
import type { Command } from 'commander';
import { targetIdSchema } from '../../contracts';
import { TOKEN_FILE } from '../../lib/server/kit/workflow';
import { requestRepeats } from '../../lib/server/submit/final-client';
import { apiFailed } from './api-failed';
import { readToken, type TokenOptions } from '../api-token';
import { intOption } from '../option-values';
import { UsageError } from '../usage-error';
import type { SetExitCode } from './set-exit-code';

interface RepeatCliOptions extends TokenOptions {
  server: string;
  times: string;
  target?: string;
  reason: string;
  json?: boolean;
}

export function registerRepeatCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('repeat')
    .description(
      'Judge a submission N more times on the same target(s), side by side, without changing its score.\n' +
        'Exit code: 0 queued, 1 refused by the server, 2 otherwise.',
    )
    .argument('<id>', 'the submission id')
    .requiredOption('--server <url>', 'the platform, e.g. https://contest.example.org')
    .option('--token <token>', 'your API token (visible to other local users in the process list)')
    .option('--token-file <file>', `read the API token from this file (e.g. ${TOKEN_FILE})`)
    .requiredOption('--times <n>', 'how many judgings per target (2–20)')
    .option('--target <target>', 'only this target (default: every target it was judged on)')
    .requiredOption('--reason <text>', 'why (the audit log keeps it)')
    .option('--json', "print the server's answer as JSON")
    .action(async (id: string, options: RepeatCliOptions) => {
      const token = await readToken(options);
      const times = intOption(options.times, '--times', 2) as number;
      if (times > 20) throw new UsageError(`--times: "${options.times}" must be at most 20`);
      if (options.target !== undefined && !targetIdSchema.safeParse(options.target).success)
        throw new UsageError(
          `--target: "${options.target}" is not a target (${targetIdSchema.options.join(', ')})`,
        );
      try {
        const series = await requestRepeats({
          server: options.server,
          token,
          submissionId: id,
          times,
          reason: options.reason,
          target: options.target,
        });
        process.stdout.write(
          options.json
            ? `${JSON.stringify(series)}\n`
            : `Queued ${series.judgings} repeat judgings of ${id} (series ${series.seriesId})\n`,
        );
        setExitCode(0);
      } catch (error) {
        apiFailed(error, 'repeat', setExitCode);
      }
    });
}
