// `perfjudge submit --server URL --token-file FILE --challenge SLUG [--wait] PATCH`: sends a patch to
// a perfjudge server's API, and with --wait follows its judging to the verdict.
// Exit 0 accepted for judging (with --wait: ACCEPTED), 1 the server rejected the patch (with --wait:
// a verdict that is the patch's fault), 2 anything else (usage, network, auth, judge error).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { MAX_JOB_PATCH_BYTES } from '../../contracts';
import { EMPTY_PATCH_MESSAGE } from '../../lib/core/intake/empty-patch';
import { apiFailed } from './api-failed';
import { postSubmission } from '../../lib/server/submit/submit-client';
import { submitCommand, TOKEN_FILE } from '../../lib/server/kit/workflow';
import { readToken, type TokenOptions } from '../api-token';
import { followToVerdict } from '../follow-submission';
import { UsageError } from '../usage-error';
import type { SetExitCode } from '.';
import { DEFAULT_CHALLENGE } from '../../lib/core/challenge/default-challenge';

interface SubmitCliOptions extends TokenOptions {
  server: string;
  challenge: string;
  wait?: boolean;
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
  if (bytes.toString('latin1').trim() === '')
    throw new UsageError(`${file}: ${EMPTY_PATCH_MESSAGE}`);
  // The server refuses it anyway; no point sending megabytes to hear so.
  if (bytes.length > MAX_JOB_PATCH_BYTES)
    throw new UsageError(
      `${file} is ${bytes.length} bytes; no challenge accepts more than ${MAX_JOB_PATCH_BYTES}`,
    );
  return bytes.toString('utf8');
}

export function registerSubmitCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('submit')
    .description(
      'Submit a patch (git diff or git format-patch output) to a perfjudge server for judging.\n' +
        `  ${submitCommand('https://contest.example.org', DEFAULT_CHALLENGE)}\n` +
        'Exit code: 0 accepted for judging, 1 rejected by the server (the reason is printed), 2 otherwise;\n' +
        "with --wait: 0 ACCEPTED, 1 a verdict that is the patch's fault, 2 otherwise.",
    )
    .addHelpText(
      'after',
      `\nExample:\n  ${submitCommand('https://contest.example.org', DEFAULT_CHALLENGE)}\n`,
    )
    .argument('<file>', 'the patch; - reads standard input')
    .requiredOption('--server <url>', 'the platform, e.g. https://contest.example.org')
    .option('--token <token>', 'your API token (visible to other local users in the process list)')
    .option('--token-file <file>', `read the API token from this file (e.g. ${TOKEN_FILE})`)
    .option('-c, --challenge <slug>', 'the challenge', DEFAULT_CHALLENGE)
    .option('--wait', 'follow the judging (a progress line per target) until the verdict')
    .option('--json', "print the server's answer (with --wait: the final state) as JSON")
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
        const pageUrl =
          accepted.url ?? new URL(`/submissions/${accepted.submissionId}`, options.server).href;
        if (options.wait) {
          process.stderr.write(`Submitted: ${accepted.submissionId}, following ${pageUrl}\n`);
          setExitCode(
            await followToVerdict({
              server: options.server,
              token,
              submissionId: accepted.submissionId,
              pageUrl,
              json: options.json,
            }),
          );
          return;
        }
        if (options.json) process.stdout.write(`${JSON.stringify(accepted)}\n`);
        else
          process.stdout.write(
            `Submitted: ${accepted.submissionId}${accepted.status ? ` (${accepted.status})` : ''}\n` +
              `Follow it at ${pageUrl}, or: perfjudge status --server ${options.server} --token-file ${options.tokenFile ?? TOKEN_FILE} --wait ${accepted.submissionId}\n`,
          );
        setExitCode(0);
      } catch (error) {
        apiFailed(error, 'submit', setExitCode);
      }
    });
}
