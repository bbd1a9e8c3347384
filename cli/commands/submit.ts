// `perfjudge submit --server URL --token TOKEN FILE`: sends a patch to a perfjudge server's API.
// Exit 0 accepted for judging, 1 the server rejected the patch, 2 anything else (usage, network, auth).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { MAX_JOB_PATCH_BYTES } from '../../contracts';
import { postSubmission, SubmitClientError } from '../../lib/submit/submit-client';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';

interface SubmitCliOptions {
  server: string;
  token?: string;
  tokenFile?: string;
  challenge: string;
  json?: boolean;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function readPatch(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = file === '-' ? await readStdin() : await readFile(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (bytes.length === 0) throw new UsageError(`${file} is empty`);
  // The server refuses it anyway; no point sending megabytes to hear so.
  if (bytes.length > MAX_JOB_PATCH_BYTES)
    throw new UsageError(
      `${file} is ${bytes.length} bytes; no challenge accepts more than ${MAX_JOB_PATCH_BYTES}`,
    );
  return bytes.toString('utf8');
}

async function readToken(options: SubmitCliOptions): Promise<string> {
  if (options.token && options.tokenFile)
    throw new UsageError('give --token or --token-file, not both');
  if (options.token) return options.token.trim();
  if (options.tokenFile) {
    try {
      return (await readFile(options.tokenFile, 'utf8')).trim();
    } catch (error) {
      throw new UsageError(`cannot read ${options.tokenFile}: ${(error as Error).message}`);
    }
  }
  throw new UsageError('an API token is needed: --token TOKEN or --token-file FILE');
}

export function registerSubmitCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('submit')
    .description(
      'Submit a patch (git diff or git format-patch output) to a perfjudge server for judging.\n' +
        'Exit code: 0 accepted for judging, 1 rejected by the server (the reason is printed), 2 otherwise.',
    )
    .argument('<file>', 'the patch; - reads standard input')
    .requiredOption('--server <url>', 'the platform, e.g. https://contest.example.org')
    .option('--token <token>', 'your API token (visible to other local users in the process list)')
    .option('--token-file <file>', 'read the API token from this file instead')
    .option('-c, --challenge <slug>', 'the challenge', 'wordcount')
    .option('--json', "print the server's answer as JSON")
    .action(async (file: string, options: SubmitCliOptions) => {
      const token = await readToken(options);
      const patchText = await readPatch(file);
      try {
        const accepted = await postSubmission({
          server: options.server,
          token,
          challenge: options.challenge,
          patchText,
        });
        if (options.json) process.stdout.write(`${JSON.stringify(accepted)}\n`);
        else
          process.stdout.write(
            `Submitted: ${accepted.submissionId}${accepted.status ? ` (${accepted.status})` : ''}\n` +
              (accepted.url ? `Follow it at ${accepted.url}\n` : ''),
          );
        setExitCode(0);
      } catch (error) {
        if (!(error instanceof SubmitClientError)) throw error;
        process.stderr.write(`perfjudge submit: ${error.message}\n`);
        setExitCode(error.failure === 'rejected' || error.failure === 'too-large' ? 1 : 2);
      }
    });
}
