// How every command that calls the platform's API ends on a failure of that call: one line on stderr
// naming the command, and the exit code ApiClientError chose (1: refused for what was sent, 2: any
// other failure). Anything else is not an API failure and goes on up.
import { ApiClientError } from '../../lib/server/submit/api-client';
import type { SetExitCode } from './set-exit-code';

export function apiFailed(error: unknown, command: string, setExitCode: SetExitCode): void {
  if (!(error instanceof ApiClientError)) throw error;
  process.stderr.write(`perfjudge ${command}: ${error.message}\n`);
  setExitCode(error.exitCode);
}
