// Binary identity: a solution whose code is the baseline's gets speedup 1.00 without timing. The
// two are built in different folders, so compare them with symbols and build ids stripped.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, lstat, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The sha256 of the binary's code and data: symbol tables, file names and build id removed. */
async function strippedSha256(binary: string, dir: string): Promise<string> {
  const out = path.join(
    dir,
    `${path.basename(path.dirname(binary))}-${Math.random().toString(36).slice(2)}`,
  );
  await execFileAsync(
    'objcopy',
    [
      '--strip-all',
      '--remove-section=.note.gnu.build-id',
      '--remove-section=.comment',
      binary,
      out,
    ],
    {
      timeout: 60_000,
    },
  );
  return fileSha256(out);
}

export async function binariesIdentical(a: string, b: string): Promise<boolean> {
  if ((await fileSha256(a)) === (await fileSha256(b))) return true;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-strip-'));
  try {
    return (await strippedSha256(a, dir)) === (await strippedSha256(b, dir));
  } catch {
    // objcopy missing or the format unknown: treat as different and time them.
    return false;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Copies the built executable out of the sandbox's folder; null unless it is a regular file. */
export async function takeBinary(
  built: string,
  workDir: string,
  name = 'solution',
): Promise<string | null> {
  const info = await lstat(built).catch(() => null);
  if (!info?.isFile()) return null;
  const target = path.join(workDir, name);
  await copyFile(built, target);
  await chmod(target, 0o755);
  return target;
}
