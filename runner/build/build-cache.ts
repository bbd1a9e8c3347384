// A content-addressed cache of built binaries: the same challenge, harness, tree, compiler, flags and
// branch give the same key, and a key that is already built is not built again.
import { createHash, type Hash } from 'node:crypto';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Toolchain } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import {
  binaryName,
  buildChallengeTree,
  unsupportedToolchain,
  type BuildFailure,
  type BuildPlatform,
  type BuildResult,
  type BuildTreeOptions,
} from './build-tree';
import { spawnExecutor, type CommandExecutor } from './executor';

/** Bumped whenever what goes into a key, or how a build is laid out, changes. */
const KEY_SCHEME = 'perfjudge-build-key-v1';
const METADATA_FILE = 'build.json';
const VERSION_TIMEOUT_MS = 30_000;
/** Far longer than any build may take (the manifest's limits are minutes). */
const ABANDONED_AFTER_MS = 6 * 3600_000;

export interface CachedBuildOptions extends Omit<BuildTreeOptions, 'outDir'> {
  /** Where built binaries are kept, one folder per key (the CLI uses `<repo>/.data/builds`). */
  cacheRoot: string;
}

export interface CachedBuildResult extends BuildResult {
  /** The cache key (sha256, hex); empty when the compiler could not even report its version. */
  key: string;
  /** True when the binary was reused and nothing was built. */
  cached: boolean;
}

interface BuildMetadata {
  key: string;
  log: string;
  commands: string[];
  durationMs: number;
  compilerVersion: string;
  createdAt: string;
}

/**
 * Files of a tree in a stable order, as POSIX relative paths. Hidden folders (.git, editor state)
 * and CMake build folders a contestant left in their working copy are not part of the source.
 */
async function listTreeFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    if (prefix && entries.some((e) => e.name === 'CMakeCache.txt')) return;
    for (const entry of entries) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) await walk(path.join(dir, entry.name), rel);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        files.push(rel);
      }
    }
  };
  await walk(root, '');
  return files.sort();
}

async function hashTree(hash: Hash, label: string, root: string): Promise<void> {
  const files = await listTreeFiles(root);
  hash.update(`${label} ${files.length}\n`);
  for (const rel of files) {
    const full = path.join(root, ...rel.split('/'));
    const info = await stat(full).catch(() => undefined);
    const link = await readlink(full).catch(() => undefined);
    // Length-prefixed, so no two different trees can produce the same byte stream.
    hash.update(`${Buffer.byteLength(rel)}:${rel}`);
    if (link !== undefined) hash.update(` -> ${Buffer.byteLength(link)}:${link}`);
    if (info?.isFile()) {
      const bytes = await readFile(full);
      hash.update(` ${bytes.length}\n`);
      hash.update(bytes);
    } else {
      hash.update(' -\n');
    }
  }
}

export interface BuildKeyInput {
  challenge: Challenge;
  sourceDir: string;
  toolchain: Toolchain;
  solution: boolean;
  /** A cross build's extra configure arguments and suffix (part of the key). */
  platform?: BuildPlatform;
  /** What `<cxx> --version` printed: a compiler upgrade must not reuse old binaries. */
  compilerVersion: string;
}

export async function computeBuildKey(input: BuildKeyInput): Promise<string> {
  const { challenge, toolchain } = input;
  const hash = createHash('sha256');
  const header = {
    scheme: KEY_SCHEME,
    challenge: challenge.manifest.slug,
    version: challenge.manifest.version,
    toolchain: { kind: toolchain.kind, cxx: toolchain.cxx, flags: toolchain.flags },
    compilerVersion: input.compilerVersion,
    solution: input.solution,
    platform: input.platform,
    // -march=native makes a binary depend on the CPU it was built on.
    host: { platform: process.platform, arch: os.arch(), cpu: os.cpus()[0]?.model ?? 'unknown' },
  };
  hash.update(`${JSON.stringify(header)}\n`);
  await hashTree(hash, 'harness', challenge.harnessDir);
  await hashTree(hash, 'source', input.sourceDir);
  return hash.digest('hex');
}

/** `<cxx> --version`, or why it could not be run. */
export async function compilerVersion(
  toolchain: Toolchain,
  options: { executor?: CommandExecutor; env?: Record<string, string>; cwd: string },
): Promise<{ ok: true; version: string } | { ok: false; message: string }> {
  const executor = options.executor ?? spawnExecutor;
  const result = await executor(toolchain.cxx, ['--version'], {
    cwd: options.cwd,
    timeoutMs: VERSION_TIMEOUT_MS,
    env: options.env,
  });
  if (result.exitCode !== 0)
    return {
      ok: false,
      message: `cannot get the version of ${toolchain.cxx}: ${
        result.spawnError ?? (result.output.trim().split('\n')[0] || `exit code ${result.exitCode}`)
      }`,
    };
  return { ok: true, version: result.output.trim() };
}

async function readCached(
  dir: string,
  challenge: Challenge,
  platform?: BuildPlatform,
): Promise<{ binary: string; metadata: BuildMetadata | undefined } | undefined> {
  const binary = path.join(dir, binaryName(challenge, platform));
  const info = await stat(binary).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const metadata = await readFile(path.join(dir, METADATA_FILE), 'utf8')
    .then((text) => JSON.parse(text) as BuildMetadata)
    .catch(() => undefined);
  return { binary, metadata };
}

/**
 * Builds (or compile-cache fills) a killed process left behind in `tmpRoot`; anything this old
 * is no longer anyone's.
 */
export async function removeAbandoned(tmpRoot: string): Promise<void> {
  const cutoff = Date.now() - ABANDONED_AFTER_MS;
  for (const name of await readdir(tmpRoot).catch(() => [])) {
    const dir = path.join(tmpRoot, name);
    const info = await stat(dir).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Builds through the cache: reuses `<cacheRoot>/<key>/` when its binary exists, otherwise builds in
 * a private temporary folder and renames the result into place, so two processes building the same
 * key never see a half-written binary (the loser of the race uses the winner's).
 */
export async function cachedBuild(options: CachedBuildOptions): Promise<CachedBuildResult> {
  const started = performance.now();
  const { challenge, toolchain, cacheRoot } = options;
  const tmpRoot = path.join(cacheRoot, '.tmp');
  await mkdir(tmpRoot, { recursive: true });
  await removeAbandoned(tmpRoot);

  const refuse = (failure: BuildFailure, message: string): CachedBuildResult => ({
    ok: false,
    log: `${message}\n`,
    durationMs: performance.now() - started,
    commands: [],
    failure,
    message,
    key: '',
    cached: false,
  });
  const unsupported = unsupportedToolchain(toolchain);
  if (unsupported) return refuse('unsupported', unsupported);

  const version = await compilerVersion(toolchain, {
    cwd: tmpRoot,
    executor: options.executor,
    env: options.env,
  });
  if (!version.ok) return refuse('tool', version.message);

  const key = await computeBuildKey({
    challenge,
    sourceDir: options.sourceDir,
    toolchain,
    solution: options.solution,
    platform: options.platform,
    compilerVersion: version.version,
  });
  const finalDir = path.join(cacheRoot, key);
  const hit = await readCached(finalDir, challenge, options.platform);
  if (hit)
    return {
      ok: true,
      binary: hit.binary,
      log: hit.metadata?.log ?? '',
      commands: hit.metadata?.commands ?? [],
      durationMs: performance.now() - started,
      key,
      cached: true,
    };

  const work = await mkdtemp(path.join(tmpRoot, `${key.slice(0, 16)}-`));
  try {
    const result = await buildChallengeTree({ ...options, outDir: path.join(work, 'build') });
    if (!result.ok || !result.binary)
      return { ...result, durationMs: performance.now() - started, key, cached: false };

    const staged = path.join(work, 'out');
    await mkdir(staged);
    await rename(result.binary, path.join(staged, binaryName(challenge, options.platform)));
    const metadata: BuildMetadata = {
      key,
      log: result.log,
      commands: result.commands,
      durationMs: result.durationMs,
      compilerVersion: version.version,
      createdAt: new Date().toISOString(),
    };
    await writeFile(path.join(staged, METADATA_FILE), `${JSON.stringify(metadata, null, 2)}\n`);
    try {
      await rename(staged, finalDir);
    } catch (error) {
      // Another process finished the same key first: a non-empty folder is already there.
      if (!(await readCached(finalDir, challenge, options.platform))) throw error;
    }
    return {
      ...result,
      binary: path.join(finalDir, binaryName(challenge, options.platform)),
      durationMs: performance.now() - started,
      key,
      cached: false,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
