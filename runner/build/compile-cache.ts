// Reuse of a solution build's unchanged work: the translation units a patch leaves as the template
// has them (the harness's main.cpp, the template's init.cpp) come from ccache, and cmake's compiler
// detection from a trusted configure of the same toolchain. Only trusted builds of the pristine
// template ever write the cache; a contestant's build reads it read-only (mount and ccache's
// read_only mode), so no build can plant an object another build picks up (docs/security.md,
// "Cache poisoning").
//
//   <dataDir>/compile-cache/ccache/       the ccache store (filled by trusted builds only)
//   <dataDir>/compile-cache/seeds/<key>/  a filled key: cmake's detection results of its configure
//   <dataDir>/compile-cache/.tmp/         fills in progress
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Toolchain } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import type { Sandbox, SandboxMount } from '../sandbox/sandbox';
import { computeBuildKey, removeAbandoned } from './build-cache';
import { buildChallengeTree, type BuildPlatform, type BuildReuse } from './build-tree';
import type { CommandExecutor } from './executor';
import { BUILD_ENV, BUILD_PATH } from './sandboxed-executor';

/** Bumped whenever what a fill stores, or how a build uses it, changes. */
const FILL_SCHEME = 'perfjudge-compile-cache-v1';
/** ccache evicts the least recently used results past this (the template's objects are ~1 MB). */
const CCACHE_MAX_SIZE = '1G';
/** What `--version` and friends may take. */
const PROBE_TIMEOUT_MS = 30_000;

/** The cache a contestant's build reads, and how. */
export interface SolutionReuse extends BuildReuse {
  /** The ccache store, read-only into the sandbox at its own path. */
  mounts: SandboxMount[];
}

export interface SolutionReuseOptions {
  /** The sandbox the build runs in: only one that sees the host's own toolchain can reuse. */
  sandboxKind: Sandbox['kind'];
  challenge: Challenge;
  toolchain: Toolchain;
  platform?: BuildPlatform;
  dataDir: string;
  /**
   * The sandbox's writable folder, holding src/ (the patched tree, complete before this is
   * called) and build/ as every solution build has them.
   */
  boxDir: string;
  /** Runs the fill's commands on the host (default: spawnExecutor; the profile stage pins them). */
  executor?: CommandExecutor;
  signal?: AbortSignal;
}

function run(command: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) =>
    execFile(
      command,
      args,
      { timeout: PROBE_TIMEOUT_MS, env: { ...BUILD_ENV } },
      (error, stdout, stderr) => resolve(error ? null : `${stdout}${stderr}`),
    ),
  );
}

/** An executable's full path as a build's PATH finds it (cmake resolves bare names the same way). */
async function onBuildPath(command: string): Promise<string | null> {
  const candidates = command.includes('/')
    ? [command]
    : BUILD_PATH.split(':').map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    const real = await realpath(candidate).catch(() => null);
    if (real && (await stat(real)).isFile()) return real;
  }
  return null;
}

/** The shared libraries an executable loads (ldd's resolved paths). */
async function sharedLibraries(executable: string): Promise<string[]> {
  const out = (await run('ldd', [executable])) ?? '';
  return [...out.matchAll(/=> (\/\S+)/g)].map((m) => m[1]!);
}

/** A file's size, time and inode: what changes when a package upgrade replaces it. */
async function fileStamp(file: string): Promise<string> {
  const info = await stat(file).catch(() => null);
  return `${file} ${info ? `${info.size} ${info.mtimeMs} ${info.ino}` : '-'}`;
}

/** One file set's stamps, in order: equal stamps mean nothing an identity covers changed. */
async function stamps(files: readonly string[]): Promise<string> {
  return (await Promise.all(files.map(fileStamp))).join('\n');
}

/**
 * What decides the compiler's output besides its arguments and sources: its `-v` banner, the
 * size and time of its executables (the driver, gcc's cc1plus) and of every library they load
 * (Debian upgrades clang's libLLVM without its driver), and the host's CPU (-march=native).
 * Null when the compiler is not there. Any upgrade changes it, so the old objects are misses.
 */
async function computeCompilerIdentity(
  driver: string,
): Promise<{ identity: string; files: string[]; stamps: string } | null> {
  const banner = await run(driver, ['-v']);
  if (banner === null) return null;
  const cc1plus = (await run(driver, ['-print-prog-name=cc1plus']))?.trim() ?? '';
  const programs = [driver, ...(path.isAbsolute(cc1plus) ? [await realpath(cc1plus)] : [])];
  const fileSet = new Set(programs);
  for (const program of programs)
    for (const lib of await sharedLibraries(program)) fileSet.add(lib);
  const files = [...fileSet].sort();
  const hash = createHash('sha256');
  hash.update(`${banner}\n${os.cpus()[0]?.model ?? 'unknown cpu'}\n`);
  hash.update(`${await stamps(files)}\n`);
  // What the banner is read from besides the programs: the folders it names (clang's GCC
  // installations, found by listing their parent). Not hashed (the banner says what they hold),
  // only watched by the memo, so that a newly installed GCC recomputes the banner.
  const watched = [...files, ...bannerFolders(banner)];
  return { identity: hash.digest('hex'), files: watched, stamps: await stamps(watched) };
}

/** The absolute folders a `-v` banner names, and the folders they were found in. */
function bannerFolders(banner: string): string[] {
  const named = [...banner.matchAll(/(?:^|\s)(\/[^\s,]*)/gm)].map((m) => path.normalize(m[1]!));
  return [...new Set(named.flatMap((p) => [p, path.dirname(p)]))].sort();
}

/**
 * The identities computed in this process, by driver: recomputing one takes about five spawns
 * (`-v`, `-print-prog-name`, ldd of each program), once per solution build. Kept while every file
 * it covers (the driver, cc1plus, their libraries) has the size, time and inode it had then, the
 * same stamps the identity hashes: an upgrade of any of them recomputes it.
 */
const identities = new Map<string, { identity: string; files: string[]; stamps: string }>();

export async function compilerIdentity(cxx: string): Promise<string | null> {
  const driver = await onBuildPath(cxx);
  if (!driver) return null;
  const known = identities.get(driver);
  if (known && (await stamps(known.files)) === known.stamps) return known.identity;
  const computed = await computeCompilerIdentity(driver);
  if (!computed) {
    identities.delete(driver);
    return null;
  }
  identities.set(driver, computed);
  return computed.identity;
}

/** cmake's `--version`, once per cmake binary as it is now (its stamp, as compilerIdentity's). */
let cmakeVersionMemo: { stamp: string; version: string } | undefined;
async function cmakeVersion(): Promise<string | null> {
  const cmake = await onBuildPath('cmake');
  if (!cmake) return null;
  const stamp = await fileStamp(cmake);
  if (cmakeVersionMemo?.stamp === stamp) return cmakeVersionMemo.version;
  const version = await run('cmake', ['--version']);
  cmakeVersionMemo = version === null ? undefined : { stamp, version };
  return version;
}

let ccacheVersion: Promise<string | null> | undefined;
/** `ccache --version`'s first line, once per process; null when ccache is not installed. */
function ccacheAvailable(): Promise<string | null> {
  ccacheVersion ??= run('ccache', ['--version']).then((out) => out?.split('\n')[0] ?? null);
  return ccacheVersion;
}

/**
 * ccache's whole configuration, from the environment only (CCACHE_CONFIGPATH=/dev/null: no host
 * or cache config file takes part), the same for the fill and the contestant's build but for
 * read_only. base_dir is the box, so the fill's box and every contestant's box hash the same
 * (paths under it become relative to the build folder); the harness keeps its absolute path.
 */
function ccacheEnv(options: {
  store: string;
  boxDir: string;
  identity: string;
  readOnly: boolean;
}): Record<string, string> {
  return {
    CCACHE_CONFIGPATH: '/dev/null',
    CCACHE_DIR: options.store,
    CCACHE_BASEDIR: options.boxDir,
    CCACHE_TEMPDIR: '/tmp',
    CCACHE_COMPILERCHECK: `string:${options.identity}`,
    // The fill's template copy is fresh; nothing edits it while it compiles.
    CCACHE_SLOPPINESS: 'include_file_mtime,include_file_ctime',
    // Warnings replayed from the cache name the reader's own files, as a compile would.
    CCACHE_ABSSTDERR: '1',
    CCACHE_MAXSIZE: CCACHE_MAX_SIZE,
    CCACHE_UMASK: '022',
    ...(options.readOnly ? { CCACHE_READONLY: '1', CCACHE_NOSTATS: '1' } : {}),
  };
}

/**
 * How a contestant's build looks results up. Direct mode (the sources and the headers a unit
 * included last time, hashed as they are now) cannot see a new file that would now be found first
 * on the include path (a `bits/c++config.h` in the tree shadows the system's for main.cpp), so it
 * is only used when the tree has exactly the template's paths, and then without the preprocessor
 * fallback (a changed unit is compiled at once). Any other tree is looked up by its preprocessed
 * source only.
 */
function lookupEnv(sameFiles: boolean): Record<string, string> {
  return sameFiles ? { CCACHE_READONLY_DIRECT: '1' } : { CCACHE_NODIRECT: '1' };
}

/** Every path under `root` (hidden ones too), sorted: what an #include could find there. */
async function treePaths(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true }).catch(() => null);
  return entries ? entries.map(String).sort() : [];
}

async function sameFiles(a: string, b: string): Promise<boolean> {
  const [left, right] = await Promise.all([treePaths(a), treePaths(b)]);
  return left.length === right.length && left.every((p, i) => p === right[i]);
}

/** The configure arguments of a build through ccache. */
const LAUNCHER_ARGS = ['-DCMAKE_CXX_COMPILER_LAUNCHER=ccache'];
/**
 * With this in the cache, cmake keeps the CMakeFiles/<version>/ it finds (the seed) instead of
 * deleting it and detecting the compiler again with its probe programs.
 */
const SEEDED_ARGS = ['-DCMAKE_PLATFORM_INFO_INITIALIZED:INTERNAL=1'];

/**
 * The build's parallel jobs: ninja's own default (CPUs + 2), but no more than the sandbox's process
 * limit holds. A job through the launcher is two processes (ccache and the compiler it waits for)
 * where it was one, beside cmake and ninja and a margin for their threads; without the cap a tree
 * of a few .cpp files would now exceed a limit it fits in without the cache.
 */
function parallelJobs(processLimit: number): number {
  return Math.max(1, Math.min(os.availableParallelism() + 2, Math.floor((processLimit - 4) / 2)));
}

function compileCacheRoot(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'compile-cache');
}

const fills = new Map<string, Promise<string | null>>();

/**
 * How a contestant's build in `boxDir` reuses the trusted work, filling the cache first when this
 * challenge, template, toolchain and compiler were never built here. Null when there is nothing
 * to reuse (no ccache, or the fill failed): the build then runs as it always did.
 */
export async function solutionReuse(options: SolutionReuseOptions): Promise<SolutionReuse | null> {
  // The fill compiles with the host's compilers: a container's image has its own (and maybe no
  // ccache), so its builds would link objects of another compiler.
  if (options.sandboxKind !== 'bubblewrap' || !(await ccacheAvailable())) return null;
  const identity = await compilerIdentity(options.toolchain.cxx);
  const cmake = await cmakeVersion();
  if (!identity || !cmake) return null;
  const root = compileCacheRoot(options.dataDir);
  const store = path.join(root, 'ccache');
  const key = await computeBuildKey({
    challenge: options.challenge,
    sourceDir: options.challenge.templateDir,
    toolchain: options.toolchain,
    solution: true,
    platform: options.platform,
    compilerVersion: `${FILL_SCHEME}\n${identity}\n${cmake}`,
  });
  const seeds = path.join(root, 'seeds', key);
  if (!(await stat(seeds).catch(() => null))) {
    let filling = fills.get(key);
    if (!filling) {
      // A fill that throws (a full disk) leaves the build as it always was, without reuse.
      filling = fill({ ...options, root, store, seeds, key, identity }).catch(() => null);
      fills.set(key, filling);
    }
    // A failed fill is remembered for the process: every later build would pay it again.
    if (!(await filling)) return null;
    fills.delete(key);
  }
  // Mounted into the sandbox, so it must exist even if someone emptied the folder since the fill.
  await mkdir(store, { recursive: true, mode: 0o755 });
  const seeded = await stat(path.join(seeds, 'build', 'CMakeFiles')).catch(() => null);
  const template = await sameFiles(path.join(options.boxDir, 'src'), options.challenge.templateDir);
  return {
    env: {
      ...ccacheEnv({ store, boxDir: path.resolve(options.boxDir), identity, readOnly: true }),
      ...lookupEnv(template),
    },
    configureArgs: [...LAUNCHER_ARGS, ...(seeded ? SEEDED_ARGS : [])],
    buildArgs: ['--parallel', String(parallelJobs(options.challenge.manifest.limits.processes))],
    ...(seeded ? { seedDir: path.join(seeds, 'build') } : {}),
    mounts: [{ host: store, sandbox: store }],
  };
}

/**
 * The trusted fill: the pristine template, laid out as a contestant's box (src/, build/) and built
 * exactly as a solution is (SOLUTION=ON, the same flags and harness), on the host as the baseline
 * is, writing the store. Its configure's detection results become the key's seed. Returns the
 * seed folder, or null when the template did not build.
 */
async function fill(
  options: SolutionReuseOptions & {
    root: string;
    store: string;
    seeds: string;
    key: string;
    identity: string;
  },
): Promise<string | null> {
  const tmpRoot = path.join(options.root, '.tmp');
  await mkdir(tmpRoot, { recursive: true });
  await mkdir(options.store, { recursive: true, mode: 0o755 });
  await removeAbandoned(tmpRoot);
  const work = await mkdtemp(path.join(tmpRoot, `${options.key.slice(0, 16)}-`));
  try {
    const box = path.join(work, 'box');
    await cp(options.challenge.templateDir, path.join(box, 'src'), { recursive: true });
    const env = ccacheEnv({ ...options, boxDir: box, readOnly: false });
    const built = await buildChallengeTree({
      challenge: options.challenge,
      sourceDir: path.join(box, 'src'),
      toolchain: options.toolchain,
      platform: options.platform,
      solution: true,
      outDir: path.join(box, 'build'),
      env: { ...BUILD_ENV },
      reuse: { env, configureArgs: LAUNCHER_ARGS },
      ...(options.executor ? { executor: options.executor } : {}),
      signal: options.signal,
    });
    if (!built.ok) return null;
    const staged = path.join(work, 'seed');
    await copySeed(path.join(box, 'build'), path.join(staged, 'build'), box);
    await mkdir(path.dirname(options.seeds), { recursive: true });
    try {
      await rename(staged, options.seeds);
    } catch (error) {
      // Another process filled the same key first.
      if (!(await stat(options.seeds).catch(() => null))) throw error;
    }
    return options.seeds;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Copies cmake's detection results (CMakeFiles/<version>/CMakeSystem.cmake and
 * CMake<LANG>Compiler.cmake) of a configured build folder. A file naming the fill's own folder
 * would be wrong in another box: then nothing is seeded and configures detect as before.
 */
async function copySeed(buildDir: string, seedBuildDir: string, box: string): Promise<void> {
  const cmakeFiles = path.join(buildDir, 'CMakeFiles');
  const versions = (await readdir(cmakeFiles, { withFileTypes: true })).filter(
    (e) => e.isDirectory() && /^\d+\.\d+\.\d+/.test(e.name),
  );
  await mkdir(seedBuildDir, { recursive: true });
  if (versions.length !== 1) return;
  const version = versions[0]!.name;
  const names = (await readdir(path.join(cmakeFiles, version))).filter(
    (name) => name === 'CMakeSystem.cmake' || /^CMake\w+Compiler\.cmake$/.test(name),
  );
  for (const name of names) {
    const text = await readFile(path.join(cmakeFiles, version, name), 'utf8');
    if (text.includes(box)) return;
  }
  const target = path.join(seedBuildDir, 'CMakeFiles', version);
  await mkdir(target, { recursive: true });
  for (const name of names) await cp(path.join(cmakeFiles, version, name), path.join(target, name));
}
