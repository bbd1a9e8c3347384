// Applies a parsed patch to a copy of the template with `git apply`, one call per mail in order, in
// an environment where no git configuration or enclosing repository can change what it does.
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  IntakeRejectionError,
  listFiles,
  parsePatch,
  reject,
  showPath,
  walkTree,
  type FileChange,
  type IntakeRejection,
  type ParsedPatch,
  type PatchMail,
} from '../../lib/core/intake';

export interface GitOptions {
  /** The git executable; looked up on `pathEnv`. */
  gitBinary?: string;
  /** PATH for git (nothing else of the caller's environment reaches it). */
  pathEnv?: string;
  /** Kill git after this long (a platform fault, not the contestant's). */
  timeoutMs?: number;
}

export interface ApplyPatchOptions extends GitOptions {
  /** Patch text, or a patch parsePatch already read. */
  patchText: Buffer | string | ParsedPatch;
  templateDir: string;
  /** Created here; must not exist or be empty. Its content is undefined after a rejection. */
  destDir: string;
  /** When given, the applied tree must hold exactly these files (relative, `/`-separated). */
  expectedFiles?: readonly string[];
}

export const DEFAULT_PATH_ENV = '/usr/local/bin:/usr/bin:/bin';
const MESSAGE_LIMIT = 4000;

interface GitRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runGit(
  args: string[],
  input: Buffer,
  cwd: string,
  env: NodeJS.ProcessEnv,
  options: GitOptions,
): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.gitBinary ?? 'git', args, {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => reject(new Error(`cannot run git apply: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (signal) reject(new Error(`git apply was killed by ${signal}`));
      else
        resolve({
          code,
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
        });
    });
    // git may exit before reading everything (a corrupt first section); that is reported by its code.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

function truncate(text: string): string {
  return text.length <= MESSAGE_LIMIT ? text : `${text.slice(0, MESSAGE_LIMIT)}\n… (truncated)`;
}

function hunkLabel(change: FileChange | undefined, line: number): string {
  if (!change) return `the hunk at line ${line}`;
  const index = change.hunks.findIndex((hunk) => hunk.oldStart === line);
  const hunk = change.hunks[index];
  if (!hunk) return `the hunk at line ${line}`;
  return `hunk ${index + 1} of ${change.hunks.length} (@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@)`;
}

/** Turns git's complaint into a rejection naming the file and, when git says, the hunk. */
function doesNotApply(mail: PatchMail, mails: number, stderr: string): never {
  const errors = stderr
    .split('\n')
    .filter((line) => !/^(Checking patch|Applied patch|Hunk #)/.test(line))
    .join('\n')
    .trim();
  const byName = (name: string) =>
    mail.files.find((change) => change.newPath === name || change.oldPath === name);
  const failed = /^error: patch failed: (.+):(\d+)$/m.exec(stderr);
  const other = /^error: (.+?): (.+)$/m.exec(stderr);
  const file = failed?.[1] ?? (other && byName(other[1]!) ? other[1] : undefined);
  const inMail =
    mails > 1
      ? ` (mail ${mail.index} of ${mails}${mail.subject ? `, "${mail.subject}"` : ''})`
      : '';
  const what = failed
    ? `${hunkLabel(byName(failed[1]!), Number(failed[2]))} does not apply to the template`
    : (other?.[2] ?? 'the patch does not apply to the template');
  const head =
    file !== undefined
      ? `${showPath(file)}${inMail}: ${what}`
      : `the patch does not apply${inMail}: ${what}`;
  reject('does-not-apply', truncate(`${head}\n\ngit apply says:\n${errors}`), file);
}

/** Defense in depth: after git, the tree holds only regular files and folders, and exactly the expected files. */
async function verifyTree(destDir: string, expectedFiles?: readonly string[]): Promise<void> {
  const entries = await walkTree(destDir);
  for (const entry of entries) {
    if (entry.type === 'symlink')
      reject(
        'symlink',
        `${showPath(entry.path)}: applying the patch produced a symbolic link`,
        entry.path,
      );
    if (entry.type === 'other')
      reject(
        'malformed',
        `${showPath(entry.path)}: applying the patch produced something that is not a regular file`,
        entry.path,
      );
  }
  if (!expectedFiles) return;
  const actual = new Set(entries.filter((e) => e.type === 'file').map((e) => e.path));
  const expected = new Set(expectedFiles);
  for (const file of actual)
    if (!expected.has(file))
      reject(
        'malformed',
        `${showPath(file)}: git apply created this file, which the patch's headers do not name`,
        file,
      );
  for (const file of expected)
    if (!actual.has(file))
      reject(
        'malformed',
        `${showPath(file)}: git apply removed or did not create this file, unlike the patch's headers say`,
        file,
      );
}

async function prepareDest(templateDir: string, destDir: string): Promise<void> {
  await mkdir(destDir, { recursive: true });
  if ((await readdir(destDir)).length > 0) throw new Error(`applyPatch: ${destDir} is not empty`);
  await cp(templateDir, destDir, {
    recursive: true,
    filter: (source) => path.basename(source) !== '.git',
  });
}

/**
 * Copies the template to destDir and applies the patch, mail by mail. Throws IntakeRejectionError
 * ('does-not-apply', 'symlink', 'malformed'); other errors (git missing, I/O) are platform faults.
 */
export async function applyParsedPatch(
  patch: ParsedPatch,
  options: Omit<ApplyPatchOptions, 'patchText'>,
): Promise<void> {
  const { templateDir, destDir } = options;
  await prepareDest(templateDir, destDir);
  const realDest = await realpath(destDir);
  const home = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-git-home-'));
  try {
    // A cast, not an annotation: under Next.js's types ProcessEnv requires NODE_ENV, which git needs not.
    const env = {
      PATH: options.pathEnv ?? DEFAULT_PATH_ENV,
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: path.join(home, 'no-gitconfig'),
      // Inside an enclosing repository git apply would resolve names against its root and skip them.
      GIT_CEILING_DIRECTORIES: path.dirname(realDest),
      LC_ALL: 'C',
      GIT_TERMINAL_PROMPT: '0',
    } as Record<string, string> as unknown as NodeJS.ProcessEnv;
    const args = ['apply', '--verbose', '--whitespace=nowarn', `-p${patch.stripLevel}`, '-'];
    for (const mail of patch.mails) {
      const run = await runGit(args, mail.applyText, realDest, env, options);
      if (run.code !== 0) doesNotApply(mail, patch.mails.length, run.stderr);
      const skipped = /^Skipped patch '(.*)'\.$/m.exec(run.stderr);
      if (skipped)
        throw new Error(
          `git apply skipped ${skipped[1]} in ${realDest}: is it inside a repository?`,
        );
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
  await verifyTree(destDir, options.expectedFiles);
}

/**
 * Copies the template to destDir and applies the patch with `git apply`, without the challenge's
 * rules: intakePatch is the entry point that validates first.
 */
export async function applyPatch(
  options: ApplyPatchOptions,
): Promise<{ ok: true; patch: ParsedPatch } | IntakeRejection> {
  try {
    const patch =
      Buffer.isBuffer(options.patchText) || typeof options.patchText === 'string'
        ? parsePatch(options.patchText, { knownFiles: await listFiles(options.templateDir) })
        : options.patchText;
    await applyParsedPatch(patch, options);
    return { ok: true, patch };
  } catch (error) {
    if (error instanceof IntakeRejectionError) return error.toRejection();
    throw error;
  }
}
