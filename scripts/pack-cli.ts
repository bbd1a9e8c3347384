// Packs the contestant CLI: `npm run pack:cli [-- --out DIR]` writes DIR/perfjudge-cli.tgz (default
// .data/downloads), an `npm pack` tarball that installs with `npm install -g <file or URL>` on a
// machine without this repository. Its layout:
//   package.json, README.md            (packages/cli/README.md)
//   dist/perfjudge.mjs                 packages/cli/entry.ts and everything it imports, one esbuild
//                                      bundle (no dependencies to install)
//   dist/*.c, dist/*.cmake             the files the bundled code opens beside itself
//                                      (`new URL('./x', import.meta.url)`: sandbox and job helpers)
//   challenges/<slug>/                 each challenge's manifest, README, template, harness, tests,
//                                      and code.mjs: its code.ts (generator, reference) bundled on
//                                      its own, found by the folder as in the repository
// The bundle must hold no database, queue or web code: the pack fails if it does.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { REPO_ROOT } from '../lib/core/config/env';

const execFileAsync = promisify(execFile);

export const CLI_TARBALL = 'perfjudge-cli.tgz';
/** Inputs that would mean the contestant's CLI drags in the platform's servers. */
const FORBIDDEN_INPUTS = [
  /(^|\/)lib\/db\//,
  /(^|\/)lib\/web\//,
  /(^|\/)lib\/queue\//,
  /(^|\/)app\//,
  /(^|\/)scorer\//,
  /node_modules\/(@prisma|prisma|bullmq|ioredis|next|pg|better-auth)\//,
];
/** Challenge files the CLI does not need (its TypeScript is bundled into code.mjs). */
const SKIPPED_CHALLENGE_ENTRIES = new Set(['submissions', 'generator', 'reference']);

/** One esbuild bundle of `entry` into `outfile`; returns the absolute paths of its inputs. */
async function bundleModule(entry: string, outfile: string, banner = ''): Promise<string[]> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // CommonJS dependencies call require() for Node's own modules; an ES module has none.
    banner: {
      js: `${banner}import { createRequire as __pjCreateRequire } from 'node:module';\nconst require = __pjCreateRequire(import.meta.url);`,
    },
    metafile: true,
    logLevel: 'warning',
    legalComments: 'eof',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const forbidden = inputs.filter((i) => FORBIDDEN_INPUTS.some((re) => re.test(i)));
  if (forbidden.length > 0)
    throw new Error(`the contestant CLI must not bundle:\n  ${forbidden.join('\n  ')}`);
  return inputs.map((i) => path.resolve(REPO_ROOT, i));
}

function bundle(stage: string): Promise<string[]> {
  return bundleModule(
    path.join(REPO_ROOT, 'packages/cli/entry.ts'),
    path.join(stage, 'dist', 'perfjudge.mjs'),
    '#!/usr/bin/env node\n',
  );
}

/** Copies every file the bundle opens beside itself, found next to the module that names it. */
async function copyAssets(stage: string, inputs: string[]): Promise<string[]> {
  const code = await readFile(path.join(stage, 'dist', 'perfjudge.mjs'), 'utf8');
  const names = [
    ...code.matchAll(/new URL\(\s*["']\.\/([^"'/]+)["']\s*,\s*import\.meta\.url\s*\)/g),
  ]
    .map((m) => m[1]!)
    .filter((n, i, all) => all.indexOf(n) === i);
  const copied: string[] = [];
  for (const name of names) {
    const sources = [...new Set(inputs.map((i) => path.join(path.dirname(i), name)))];
    let found = false;
    for (const source of sources) {
      try {
        await cp(source, path.join(stage, 'dist', name));
        found = true;
        break;
      } catch {
        // Not beside this module.
      }
    }
    if (!found) throw new Error(`the bundle opens ./${name}, which is beside none of its modules`);
    copied.push(name);
  }
  return copied;
}

async function copyChallenges(stage: string): Promise<string[]> {
  const slugs: string[] = [];
  const root = path.join(REPO_ROOT, 'challenges');
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const from = path.join(root, entry.name);
    const files = await readdir(from).catch((): string[] => []);
    if (!files.includes('manifest.yaml')) continue;
    for (const file of files)
      // A challenge's own code (code.ts, generator/, reference/) goes into code.mjs below.
      if (!SKIPPED_CHALLENGE_ENTRIES.has(file) && !file.endsWith('.ts'))
        await cp(path.join(from, file), path.join(stage, 'challenges', entry.name, file), {
          recursive: true,
        });
    if (files.includes('code.ts'))
      await bundleModule(
        path.join(from, 'code.ts'),
        path.join(stage, 'challenges', entry.name, 'code.mjs'),
      );
    slugs.push(entry.name);
  }
  return slugs;
}

/** Builds the tarball into `outDir`; returns its path. */
export async function packCli(outDir: string): Promise<string> {
  const stage = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-pack-'));
  try {
    const root = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
      engines: Record<string, string>;
    };
    const inputs = await bundle(stage);
    await copyAssets(stage, inputs);
    const challenges = await copyChallenges(stage);
    await cp(path.join(REPO_ROOT, 'packages/cli/README.md'), path.join(stage, 'README.md'));
    await writeFile(
      path.join(stage, 'package.json'),
      `${JSON.stringify(
        {
          name: 'perfjudge',
          version: root.version,
          description: `The perfjudge contestant CLI: judge a patch locally exactly as the platform does, and submit it (challenges: ${challenges.join(', ')})`,
          type: 'module',
          bin: { perfjudge: 'dist/perfjudge.mjs' },
          files: ['dist', 'challenges', 'README.md'],
          engines: root.engines,
        },
        null,
        2,
      )}\n`,
    );
    await mkdir(outDir, { recursive: true });
    const { stdout } = await execFileAsync('npm', ['pack', '--json', '--pack-destination', stage], {
      cwd: stage,
      maxBuffer: 16 << 20,
    });
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    if (!packed) throw new Error('npm pack made no tarball');
    // Renamed into place: a half-written tarball is never served.
    const target = path.join(outDir, CLI_TARBALL);
    const temp = `${target}.${process.pid}.tmp`;
    await cp(path.join(stage, packed.filename), temp);
    await rename(temp, target);
    return target;
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--out');
  const outDir = path.resolve(
    at > 0 ? process.argv[at + 1]! : path.join(REPO_ROOT, '.data', 'downloads'),
  );
  const file = await packCli(outDir);
  console.log(file);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
