// The contestant kit of a challenge, generated from the challenge folder so it never drifts: the
// template (at the kit's root, so `git diff` gives the paths intake expects), a pristine copy of it
// for the baseline, the judge's harness, the edge cases with their expected outputs, the public
// input, the kit's build and check/time scripts (lib/server/kit/files/), and a README that opens with the
// workflow. Archives are built once per content and cached in the data dir.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { TarArchive, ZipArchive } from 'archiver';
import type { Manifest } from '../../../contracts';
import { loadEdgeCases } from '../../core/challenge/edge-cases';
import type { Challenge } from '../../core/challenge/load-manifest';
import { REPO_ROOT } from '../../core/config/env';
import {
  contestantWorkflow,
  kitArchiveName,
  workflowMarkdown,
  type KitArchiveFormat,
} from './workflow';

/** The kit's generic files (the same for every challenge), with their place in the kit. */
const KIT_FILES_DIR = path.join(REPO_ROOT, 'lib', 'server', 'kit', 'files');
const STATIC_FILES: [source: string, kitPath: string][] = [
  ['CMakeLists.txt', 'CMakeLists.txt'],
  ['check.cmake', 'check.cmake'],
  ['time.cmake', 'time.cmake'],
  ['run-program.cmake', 'kit/run-program.cmake'],
  ['sync-tree.cmake', 'kit/sync-tree.cmake'],
  ['first-difference.cpp', 'kit/first-difference.cpp'],
];
export const PUBLIC_INPUT_FILE = 'public-input.txt';

export interface KitEntry {
  /** Path inside the kit folder, with `/`. */
  path: string;
  /** The bytes, or a file on disk to copy (the public input is large). */
  content: Buffer | { file: string; sha256: string };
}

export interface KitOptions {
  /** The platform's public URL, filled into the README's commands. */
  server: string;
  /** The public input, exactly as the test stage generates it. */
  publicInput: { path: string; sha256: string };
}

async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = path.posix.join(prefix, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(dir, rel)));
    else if (entry.isFile()) out.push(rel);
  }
  return out.sort();
}

function cmakeList(values: readonly string[]): string {
  return values.map((v) => `"${v.replace(/[\\"$]/g, (c) => `\\${c}`)}"`).join(' ');
}

/**
 * The template file holding the `#ifdef SOLUTION` branch, which the kit names when the solution is
 * still the baseline (the first editable file when none holds it).
 */
export async function solutionFile(challenge: Challenge): Promise<string> {
  for (const file of challenge.manifest.editableFiles) {
    const text = await readFile(path.join(challenge.templateDir, file), 'utf8').catch(() => '');
    if (/^#ifdef SOLUTION\b/m.test(text)) return file;
  }
  return challenge.manifest.editableFiles[0]!;
}

/** kit/config.cmake: what the kit's scripts need from the manifest, written out as CMake. */
function kitConfig(manifest: Manifest, solution: string): string {
  const targets = Object.entries(manifest.targets);
  const msvc = targets.find(([, t]) => t.toolchain.kind === 'clang-cl');
  const gnu = targets.find(([, t]) => t.toolchain.kind !== 'clang-cl');
  // The kit's sync copies new files by extension: the manifest's patterns, at any depth.
  const globs = [
    ...new Set(
      manifest.allowedNewFiles
        .map((p) => /\*(\.[A-Za-z0-9]+)$/.exec(p)?.[1])
        .filter((e): e is string => e !== undefined)
        .map((e) => `*${e}`),
    ),
  ];
  const advisory = manifest.tests.groups.filter((g) => !g.required).map((g) => g.id);
  return [
    `# Generated from the challenge's manifest (${manifest.slug} version ${manifest.version}). Protected.`,
    `set(KIT_SLUG ${cmakeList([manifest.slug])})`,
    `set(KIT_PROGRAM ${cmakeList([manifest.slug])})`,
    `set(KIT_GNU_TARGET ${cmakeList([gnu?.[0] ?? 'none'])})`,
    `set(KIT_GNU_FLAGS ${cmakeList(gnu?.[1].toolchain.flags ?? ['-O2', '-std=c++17'])})`,
    `set(KIT_MSVC_TARGET ${cmakeList([msvc?.[0] ?? 'none'])})`,
    `set(KIT_MSVC_FLAGS ${cmakeList(msvc?.[1].toolchain.flags ?? ['/O2', '/std:c++17', '/EHsc'])})`,
    `set(KIT_EDITABLE ${cmakeList(manifest.editableFiles)})`,
    `set(KIT_SOLUTION_FILE ${cmakeList([solution])})`,
    `set(KIT_NEW_FILE_GLOBS ${cmakeList(globs)})`,
    `set(KIT_ADVISORY_GROUPS ${cmakeList(advisory)})`,
    `set(KIT_TEST_SECONDS ${manifest.limits.testRunSeconds})`,
    `set(KIT_BENCHMARK_SECONDS ${manifest.limits.benchmarkRunSeconds})`,
    `set(KIT_PUBLIC_INPUT_FILE ${cmakeList([PUBLIC_INPUT_FILE])})`,
    '',
  ].join('\n');
}

/** What check.cmake prints for the kit as downloaded (the web-downloads test compares it). */
function freshCheckOutput(edgeCases: number, solution: string): string {
  return [
    `edge cases: ${edgeCases} of ${edgeCases} pass`,
    'public input: the same output as the baseline',
    'check passed',
    `your solution is still the baseline: edit ${solution} (its #ifdef SOLUTION branch)`,
  ].join('\n');
}

function kitReadme(
  challenge: Challenge,
  server: string,
  challengeReadme: string,
  fresh: { edgeCases: number; solution: string },
): string {
  const { manifest } = challenge;
  const workflow = workflowMarkdown(contestantWorkflow({ slug: manifest.slug, server }));
  const editable = manifest.editableFiles.map((f) => `\`${f}\``).join(', ');
  return `# ${manifest.title}: the contestant kit

From ${server}/challenges/${manifest.slug} (challenge version ${manifest.version}). The task, the
interface and the rules follow below the workflow.

${workflow}
## What a fresh kit prints

The \`#ifdef SOLUTION\` branch of \`${fresh.solution}\` starts as a copy of the baseline, so the kit
builds, checks and times before you change anything: the build ends with
\`Completed 'solution'\`, and

\`\`\`
$ cmake -P check.cmake
${freshCheckOutput(fresh.edgeCases, fresh.solution)}
\`\`\`

\`cmake -P time.cmake\` then prints a speedup near 1.0x (this machine's noise) and the same last line.

## What is in the kit

| path | what it is |
| --- | --- |
| ${editable} | the template: **yours to edit** (and new \`.cpp\`/\`.hpp\`/\`.h\`/\`.inl\` files, in sub-folders too) |
| \`harness/\` | the judge's driver and build, byte for byte: **read-only**, a patch touching it is rejected |
| \`tests/<group>/<case>.in\`, \`.expected\` | the edge cases and their exact expected outputs: **read-only** |
| \`${PUBLIC_INPUT_FILE}\` | the public input the judge's test stage checks (the benchmark input is hidden) |
| \`CMakeLists.txt\`, \`check.cmake\`, \`time.cmake\`, \`kit/\` | the kit's build and scripts (\`kit/baseline/\` is the pristine template the baseline is built from): **read-only** |

\`cmake -B build\` builds \`build/baseline/${manifest.slug}\` and \`build/solution/${manifest.slug}\`
(\`.exe\` on Windows) with the contest's flags; run either on a file: \`build/solution/${manifest.slug} ${PUBLIC_INPUT_FILE}\`.
Tested on Linux (clang++, g++) and with MinGW-w64 under Wine; on Windows with Visual Studio or
clang-cl it is untested so far, please report what fails.

---

${challengeReadme.replace(/^# .*\n/, '## The challenge\n')}`;
}

/** Every file of the kit, in a fixed order. */
async function kitEntries(challenge: Challenge, options: KitOptions): Promise<KitEntry[]> {
  const entries: KitEntry[] = [];
  const add = (kitPath: string, content: KitEntry['content']) => {
    if (entries.some((e) => e.path === kitPath))
      throw new Error(`kit of ${challenge.manifest.slug}: two files at ${kitPath}`);
    entries.push({ path: kitPath, content });
  };
  const readme = await readFile(path.join(challenge.dir, challenge.manifest.readme), 'utf8');
  const edgeCases = await loadEdgeCases(challenge);
  const solution = await solutionFile(challenge);
  add(
    'README.md',
    Buffer.from(
      kitReadme(challenge, options.server, readme, { edgeCases: edgeCases.length, solution }),
    ),
  );
  add(
    '.gitignore',
    Buffer.from('# The kit: build folders and patches stay out of the patch.\nbuild*/\n*.patch\n'),
  );
  for (const file of await filesUnder(challenge.templateDir)) {
    const bytes = await readFile(path.join(challenge.templateDir, file));
    add(file, bytes);
    add(`kit/baseline/${file}`, bytes);
  }
  for (const file of await filesUnder(challenge.harnessDir))
    add(`harness/${file}`, await readFile(path.join(challenge.harnessDir, file)));
  for (const [source, kitPath] of STATIC_FILES)
    add(kitPath, await readFile(path.join(KIT_FILES_DIR, source)));
  add('kit/config.cmake', Buffer.from(kitConfig(challenge.manifest, solution)));
  for (const edgeCase of edgeCases) {
    const base = `tests/${edgeCase.group}/${edgeCase.name}`;
    add(`${base}.in`, edgeCase.input);
    add(`${base}.expected`, edgeCase.expected);
    add(`${base}.description`, Buffer.from(`${edgeCase.description.trim()}\n`));
  }
  add(PUBLIC_INPUT_FILE, { file: options.publicInput.path, sha256: options.publicInput.sha256 });
  return entries;
}

/** What determines the archive's bytes, so a cached archive is reused only when it is the same. */
function entriesDigest(entries: KitEntry[], format: KitArchiveFormat): string {
  const hash = createHash('sha256').update(`kit-archive-1\0${format}\0`);
  for (const e of entries) {
    hash.update(`${e.path}\0`);
    hash.update(
      Buffer.isBuffer(e.content)
        ? createHash('sha256').update(e.content).digest('hex')
        : e.content.sha256,
    );
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 24);
}

async function writeArchive(
  entries: KitEntry[],
  slug: string,
  format: KitArchiveFormat,
  file: string,
): Promise<void> {
  const archive =
    format === 'zip'
      ? new ZipArchive({ zlib: { level: 6 } })
      : new TarArchive({ gzip: true, gzipOptions: { level: 6 } });
  // Fixed dates, so the same kit always gives the same archive bytes.
  const date = new Date('2026-01-01T00:00:00Z');
  const written = pipeline(archive, createWriteStream(file));
  for (const e of entries) {
    const data = { name: `${slug}/${e.path}`, date, mode: 0o644 };
    if (Buffer.isBuffer(e.content)) archive.append(e.content, data);
    else archive.file(e.content.file, data);
  }
  await archive.finalize();
  await written;
}

const building = new Map<string, Promise<string>>();
/**
 * Per process, the archive of a challenge version: collecting the entries (the edge cases expand to
 * megabytes) takes seconds on a busy host, and a version's files do not change (bump it when they do).
 */
const byVersion = new Map<string, Promise<string>>();

/** The kit archive's path on disk (under `<dataDir>/kits/`), built on first request. */
export async function kitArchive(
  challenge: Challenge,
  format: KitArchiveFormat,
  options: KitOptions & { dataDir: string },
): Promise<{ path: string; name: string; bytes: number }> {
  const slug = challenge.manifest.slug;
  const versionKey = [
    challenge.dir,
    challenge.manifest.version,
    format,
    options.server,
    options.publicInput.sha256,
    options.dataDir,
  ].join('\0');
  let pending = byVersion.get(versionKey);
  if (!pending) {
    pending = buildArchive(challenge, format, options);
    byVersion.set(versionKey, pending);
    pending.catch(() => byVersion.delete(versionKey));
  }
  const built = await pending;
  return { path: built, name: kitArchiveName(slug, format), bytes: (await stat(built)).size };
}

async function buildArchive(
  challenge: Challenge,
  format: KitArchiveFormat,
  options: KitOptions & { dataDir: string },
): Promise<string> {
  const slug = challenge.manifest.slug;
  const entries = await kitEntries(challenge, options);
  const dir = path.join(options.dataDir, 'kits');
  const file = path.join(dir, `${slug}-${entriesDigest(entries, format)}.${format}`);
  let pending = building.get(file);
  if (!pending) {
    pending = (async () => {
      const known = await stat(file).catch(() => undefined);
      if (known?.isFile()) return file;
      await mkdir(dir, { recursive: true });
      const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
      try {
        await writeArchive(entries, slug, format, temp);
        await rename(temp, file);
      } finally {
        await rm(temp, { force: true });
      }
      return file;
    })();
    building.set(file, pending);
    pending.catch(() => building.delete(file));
  }
  return pending;
}
