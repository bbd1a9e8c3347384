// The API token of `perfjudge submit` and `perfjudge status`: --token or --token-file, never both.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { UsageError } from './usage-error';

export interface TokenOptions {
  token?: string;
  tokenFile?: string;
}

/** A leading `~/` is the home folder, also where no shell expands it (Windows). */
function expandHome(file: string): string {
  return file === '~' || file.startsWith('~/') ? `${os.homedir()}${file.slice(1)}` : file;
}

export async function readToken(options: TokenOptions): Promise<string> {
  if (options.token && options.tokenFile)
    throw new UsageError('give --token or --token-file, not both');
  if (options.token) return options.token.trim();
  if (options.tokenFile) {
    const file = expandHome(options.tokenFile);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    const token = text.trim();
    if (!token || token.length > 512 || /\s/.test(token))
      throw new UsageError(`${file} does not hold one API token`);
    return token;
  }
  throw new UsageError(
    'an API token is needed: --token-file FILE (or --token TOKEN); create one on the account page',
  );
}
