// Regenerates a challenge's example submissions (submissions/<verdict>/<name>.patch) with git diff from their source folders.
//
//   npx tsx scripts/make-submission-patch.ts [--challenge wordcount] [--check] [folder...]
//
// A folder submissions/<verdict>/<name>/ holds the files the submission changes or adds, laid out as
// in the contestant's tree (the template plus the harness's files, as a contestant downloads it),
// and `.description`: the one line that heads the patch. Files under `__parent__/` stand for files
// one level above the tree (a `../` path, which only a hand-edited patch can hold). --check writes
// nothing and exits 1 when a patch is missing or differs from what its folder gives.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { loadChallenge, type Challenge } from '../lib/core/challenge/load-manifest';
import { DEFAULT_CHALLENGE } from '../lib/core/challenge/default-challenge';

const execFileAsync = promisify(execFile);

export const DESCRIPTION_FILE = '.description';
export const PARENT_DIR = '__parent__';

/**
 * Options that make the diff the same on every machine, whatever the user's git config says
 * (prefixes, abbreviation length, diff algorithm, rename detection, colour).
 */
const GIT_CONFIG = [
  '-c',
  'diff.noprefix=false',
  '-c',
  'diff.mnemonicPrefix=false',
  '-c',
  'diff.external=',
  '-c',
  'color.ui=never',
  '-c',
  'core.quotePath=true',
  '-c',
  'core.autocrlf=false',
  '-c',
  'user.email=submissions@perfjudge.invalid',
  '-c',
  'user.name=perfjudge',
];
const DIFF_OPTIONS = [
  '--no-ext-diff',
  '--no-renames',
  '--diff-algorithm=myers',
  '--indent-heuristic',
  '--abbrev=12',
];

export interface SubmissionFolder {
  /** The expected verdict's folder name, e.g. wrong_answer. */
  verdictDir: string;
  name: string;
  /** Absolute path of the source folder. */
  dir: string;
  /** Absolute path of the patch generated from it. */
  patchPath: string;
}

export function submissionsDir(challenge: Challenge): string {
  return path.join(challenge.dir, 'submissions');
}

/** Every submissions/<verdict>/<name>/ folder, sorted. */
export async function listSubmissionFolders(challenge: Challenge): Promise<SubmissionFolder[]> {
  const root = submissionsDir(challenge);
  const folders: SubmissionFolder[] = [];
  for (const verdict of await readdir(root, { withFileTypes: true })) {
    if (!verdict.isDirectory()) continue;
    for (const entry of await readdir(path.join(root, verdict.name), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = path.join(root, verdict.name, entry.name);
      folders.push({
        verdictDir: verdict.name,
        name: entry.name,
        dir,
        patchPath: `${dir}.patch`,
      });
    }
  }
  return folders.sort((a, b) => a.dir.localeCompare(b.dir));
}

async function listFilesRecursive(dir: string, prefix = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...(await listFilesRecursive(dir, rel)));
    else if (entry.isFile()) files.push(rel);
    else throw new Error(`${path.join(dir, rel)}: only regular files and folders are supported`);
  }
  return files.sort();
}

async function readDescription(folder: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path.join(folder, DESCRIPTION_FILE), 'utf8');
  } catch {
    throw new Error(`${folder} has no ${DESCRIPTION_FILE} (one line saying what it does)`);
  }
  const line = text.trim();
  // The line heads the patch: it must not read as part of a diff or a mail series.
  if (!line || line.includes('\n') || /^(?:diff |---|\+\+\+|@@|From |index )/.test(line))
    throw new Error(`${folder}/${DESCRIPTION_FILE} must be one line of prose`);
  return line;
}

/**
 * The patch for one submission folder: `# <description>` and the `git diff` of the contestant's
 * tree with the folder's files written over it.
 */
export async function makeSubmissionPatch(challenge: Challenge, folder: string): Promise<string> {
  const description = await readDescription(folder);
  const work = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-submission-'));
  const tree = path.join(work, 'tree');
  const git = async (args: string[], okCodes: number[] = [0]) => {
    try {
      return (
        await execFileAsync('git', [...GIT_CONFIG, ...args], { cwd: tree, maxBuffer: 64 << 20 })
      ).stdout;
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      if (typeof e.code === 'number' && okCodes.includes(e.code)) return e.stdout ?? '';
      throw new Error(`git ${args.join(' ')} failed: ${e.stderr ?? String(error)}`);
    }
  };
  try {
    await cp(challenge.templateDir, tree, { recursive: true });
    await cp(challenge.harnessDir, tree, { recursive: true });
    await git(['init', '-q']);
    await git(['add', '-A']);
    await git(['commit', '-q', '-m', 'template']);

    const outside: string[] = [];
    for (const rel of await listFilesRecursive(folder)) {
      if (rel === DESCRIPTION_FILE) continue;
      const content = await readFile(path.join(folder, rel));
      let dest = path.join(tree, rel);
      if (rel.startsWith(`${PARENT_DIR}/`)) {
        const name = rel.slice(PARENT_DIR.length + 1);
        outside.push(name);
        dest = path.join(work, name);
      }
      await mkdir(path.dirname(dest), { recursive: true });
      await writeFile(dest, content);
    }
    await git(['add', '-A']);
    let diff = await git(['diff', '--cached', ...DIFF_OPTIONS]);
    for (const name of outside) {
      // git diff --no-index exits 1 when the files differ, which they always do here.
      diff += await git(['diff', '--no-index', ...DIFF_OPTIONS, '/dev/null', `../${name}`], [1]);
    }
    if (!diff.trim()) throw new Error(`${folder} changes nothing`);
    return `# ${description}\n${diff}`;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

interface Args {
  challenge: string;
  check: boolean;
  folders: string[];
}

function parseArgs(argv: string[]): Args {
  const args: Args = { challenge: DEFAULT_CHALLENGE, check: false, folders: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--check') args.check = true;
    else if (arg === '--challenge' && argv[i + 1] !== undefined) args.challenge = argv[++i]!;
    else if (arg === '--help' || arg === '-h' || arg.startsWith('-')) {
      throw new Error(
        'usage: tsx scripts/make-submission-patch.ts [--challenge SLUG] [--check] [submission folder...]',
      );
    } else args.folders.push(path.resolve(arg.replace(/[/\\]+$/, '').replace(/\.patch$/, '')));
  }
  return args;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const challenge = await loadChallenge(args.challenge);
  const all = await listSubmissionFolders(challenge);
  const chosen = args.folders.length
    ? args.folders.map((dir) => {
        const found = all.find((f) => f.dir === dir);
        if (!found)
          throw new Error(`${dir} is not a folder under ${submissionsDir(challenge)}/<verdict>/`);
        return found;
      })
    : all;
  let stale = 0;
  for (const folder of chosen) {
    const patch = await makeSubmissionPatch(challenge, folder.dir);
    const current = await readFile(folder.patchPath, 'utf8').catch(() => null);
    const rel = path.relative(process.cwd(), folder.patchPath);
    if (current === patch) continue;
    if (args.check) {
      stale++;
      console.error(`${rel}: ${current === null ? 'missing' : 'out of date'}`);
    } else {
      await writeFile(folder.patchPath, patch);
      console.log(`wrote ${rel}`);
    }
  }
  if (args.check && stale === 0) console.log(`${chosen.length} patches up to date`);
  return stale > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(2);
    },
  );
}
