// The compile cache of solution builds (runner/build/compile-cache.ts) with real compilers and the
// bubblewrap sandbox: a contestant's build reuses the trusted template's objects and cmake's
// detection, can never write the cache, and recompiles what its patch changes.
import { execFile } from 'node:child_process';
import {
  chmod,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Toolchain } from '../../contracts';
import { loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';
import { buildChallengeTree, solutionReuse, type SolutionReuse } from '../../runner/build';
import { compilerIdentity } from '../../runner/build/compile-cache';
import { BUILD_ENV, sandboxedExecutor } from '../../runner/build/sandboxed-executor';
import { binariesIdentical } from '../../runner/judge/binaries';
import { buildSolution } from '../../runner/judge/build-steps';
import type { TargetPlatform } from '../../runner/platform';
import { createSandbox } from '../../runner/sandbox';
import {
  canCrossCompile,
  MINGW_TOOLCHAIN_FILE,
  mingwBuild,
} from '../../runner/windows/mingw-toolchain';

const execFileAsync = promisify(execFile);
const sandbox = createSandbox('bubblewrap');

let challenge: Challenge;
let toolchain: Toolchain;
let tmp: string;
let dataDir: string;
let input: string;
let expected: string;

/** A sandbox folder holding the template (plus `files`) in src/, reachable by the sandbox user. */
async function makeBox(files: Record<string, string> = {}): Promise<string> {
  const box = await mkdtemp(path.join(tmp, 'box-'));
  await chmod(box, 0o755);
  await cp(challenge.templateDir, path.join(box, 'src'), { recursive: true });
  for (const [name, text] of Object.entries(files))
    await writeFile(path.join(box, 'src', name), text);
  return box;
}

/** Every file of the store with its size and time: a write of any kind changes it. */
async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full);
      const info = await stat(full);
      out.push(`${full} ${info.size} ${info.mtimeMs} ${info.mode}`);
    }
  };
  await walk(dir);
  return out.sort();
}

/** The platform a linux-intel judging builds with (only what buildSolution reads). */
function linuxPlatform(): TargetPlatform {
  return { toolchain, buildMounts: [] } as unknown as TargetPlatform;
}

/**
 * A solution build as buildSolution runs it, plus ccache's log written into the box, to see which
 * units were reused: source file → ccache's result (direct_cache_hit, cache_miss, ...).
 */
async function buildWithLog(
  box: string,
  options: { toolchain: Toolchain; platform?: ReturnType<typeof mingwBuild>['platform'] } = {
    toolchain,
  },
): Promise<{ ok: boolean; log: string; results: Map<string, string>; reuse: SolutionReuse }> {
  const reuse = await solutionReuse({
    sandboxKind: sandbox.kind,
    challenge,
    toolchain: options.toolchain,
    ...(options.platform ? { platform: options.platform } : {}),
    dataDir,
    boxDir: box,
  });
  if (!reuse) throw new Error('no compile cache: is ccache installed?');
  const logFile = path.join(box, 'ccache.log');
  const built = await buildChallengeTree({
    challenge,
    sourceDir: path.join(box, 'src'),
    toolchain: options.toolchain,
    ...(options.platform ? { platform: options.platform } : {}),
    solution: true,
    outDir: path.join(box, 'build'),
    env: { ...BUILD_ENV },
    reuse: { ...reuse, env: { ...reuse.env, CCACHE_LOGFILE: logFile } },
    executor: sandboxedExecutor({
      sandbox,
      workDir: box,
      readOnly: [
        { host: challenge.harnessDir, sandbox: challenge.harnessDir },
        ...(options.platform
          ? [{ host: MINGW_TOOLCHAIN_FILE, sandbox: MINGW_TOOLCHAIN_FILE }]
          : []),
        ...reuse.mounts,
      ],
      limits: challenge.manifest.limits,
    }),
  });
  const results = new Map<string, string>();
  const text = await readFile(logFile, 'utf8').catch(() => '');
  const sourceOf = new Map<string, string>();
  for (const m of text.matchAll(/ (\d+) *\] Source file: (\S+)/g))
    sourceOf.set(m[1]!, path.basename(m[2]!));
  for (const m of text.matchAll(/ (\d+) *\] Result: (\w+)/g)) {
    const source = sourceOf.get(m[1]!);
    if (source && !results.has(source)) results.set(source, m[2]!);
  }
  return { ok: built.ok, log: built.log, results, reuse };
}

async function runBinary(binary: string): Promise<string> {
  const { stdout } = await execFileAsync(binary, [input]);
  return stdout;
}

beforeAll(async () => {
  challenge = await loadChallenge('wordcount');
  toolchain = challenge.manifest.targets['linux-intel']!.toolchain;
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-build-reuse-'));
  await chmod(tmp, 0o755);
  // A data folder of its own: the store's contents are compared before and after builds.
  dataDir = path.join(tmp, 'data');
  input = path.join(tmp, 'input.txt');
  await writeFile(input, 'b a b\tc\nzeta a b\n');
  expected = 'b\t3\na\t2\nc\t1\nzeta\t1\n';
  await sandbox.check();
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('a solution build through the compile cache', () => {
  it('reuses the template units and detection, with the same machine code as a build without it', async () => {
    const plainBox = await makeBox();
    const plain = await buildChallengeTree({
      challenge,
      sourceDir: path.join(plainBox, 'src'),
      toolchain,
      solution: true,
      outDir: path.join(plainBox, 'build'),
      env: { ...BUILD_ENV },
    });
    expect(plain.ok, plain.log).toBe(true);

    const box = await makeBox();
    const { ok, log, results, reuse } = await buildWithLog(box);
    expect(ok, log).toBe(true);
    // The first build filled the cache from the pristine template, so all three units are hits.
    expect(Object.fromEntries(results)).toEqual({
      'main.cpp': 'direct_cache_hit',
      'init.cpp': 'direct_cache_hit',
      'wordcount.cpp': 'direct_cache_hit',
    });
    // The log says what ran: the launcher on every compile, no probe programs in the configure.
    expect(log).toContain('-DCMAKE_CXX_COMPILER_LAUNCHER=ccache');
    expect(log).toMatch(/ccache \/usr\/bin\/clang\+\+ -DSOLUTION/);
    expect(log).not.toContain('Detecting CXX compiler ABI info');
    expect(reuse.env.CCACHE_READONLY).toBe('1');
    expect(reuse.env.CCACHE_READONLY_DIRECT).toBe('1');
    const binary = path.join(box, 'build', 'wordcount');
    expect(await runBinary(binary)).toBe(expected);
    expect(await binariesIdentical(binary, path.join(plainBox, 'build', 'wordcount'))).toBe(true);
  });

  it('recompiles main.cpp when the patch changes a header it includes', async () => {
    // The fields swapped: a stale main.cpp object would read `count` where the string now is.
    const header = (
      await readFile(path.join(challenge.templateDir, 'wordcount.hpp'), 'utf8')
    ).replace('  int count;\n  std::string word;\n', '  std::string word;\n  int count;\n');
    const source = (
      await readFile(path.join(challenge.templateDir, 'wordcount.cpp'), 'utf8')
    ).replaceAll(
      'WordCount{p.second, std::move(p.first)}',
      'WordCount{std::move(p.first), p.second}',
    );
    expect(header).toContain('std::string word;\n  int count;');
    const box = await makeBox({ 'wordcount.hpp': header, 'wordcount.cpp': source });
    const { ok, log, results } = await buildWithLog(box);
    expect(ok, log).toBe(true);
    expect(Object.fromEntries(results)).toEqual({
      'main.cpp': 'cache_miss',
      'init.cpp': 'cache_miss',
      'wordcount.cpp': 'cache_miss',
    });
    expect(await runBinary(path.join(box, 'build', 'wordcount'))).toBe(expected);
  });

  it('a new header that shadows a system one for main.cpp is not hidden by a cached object', async () => {
    // <unordered_map> reaches libstdc++'s <bits/c++config.h> through the include path, where the
    // tree's root comes first: the harness now compiles against this file, as without a cache.
    const box = await makeBox({});
    await mkdir(path.join(box, 'src', 'bits'));
    await writeFile(
      path.join(box, 'src', 'bits', 'c++config.h'),
      '#error the tree shadows a system header\n',
    );
    const { ok, log, results, reuse } = await buildWithLog(box);
    expect(ok).toBe(false);
    expect(log).toContain('the tree shadows a system header');
    expect(results.get('main.cpp')).not.toMatch(/hit/);
    expect(reuse.env.CCACHE_NODIRECT).toBe('1');
  });

  it("a contestant's build cannot write the cache: read-only mount and ccache's read_only mode", async () => {
    const box = await makeBox({ 'wordcount.cpp': '#error never compiles\n' });
    const reuse = await solutionReuse({
      sandboxKind: sandbox.kind,
      challenge,
      toolchain,
      dataDir,
      boxDir: box,
    });
    if (!reuse) throw new Error('no compile cache');
    const store = reuse.env.CCACHE_DIR!;
    expect(reuse.mounts).toEqual([{ host: store, sandbox: store }]);
    const before = await snapshot(store);
    const someResult = before.find((line) => /R /.test(line))!.split(' ')[0]!;

    // What any process of the build could try: plant a file, append to a result, make a folder.
    const run = sandboxedExecutor({
      sandbox,
      workDir: box,
      readOnly: reuse.mounts,
      limits: challenge.manifest.limits,
    });
    for (const script of [
      `echo poison > "${store}/poison"`,
      `printf x >> "${someResult}"`,
      `mkdir "${store}/0/poison"`,
      `rm -f "${someResult}"`,
      `touch "${someResult}"`,
    ]) {
      const result = await run('/bin/sh', ['-c', script], {
        cwd: box,
        env: reuse.env,
        timeoutMs: 30_000,
      });
      expect(result.exitCode, `${script}: ${result.output}`).not.toBe(0);
    }

    // And the judge's own path: a failing build and a good one leave the store as it was.
    const failed = await buildSolution({
      challenge,
      platform: linuxPlatform(),
      sandbox,
      boxDir: box,
      dataDir,
      workDir: box,
    });
    expect(failed.build.ok).toBe(false);
    expect(failed.build.log).toContain('never compiles');
    const changedBox = await makeBox({
      'init.cpp': '#include "wordcount.hpp"\nvoid init() { static int x = 1; (void)x; }\n',
    });
    const good = await buildSolution({
      challenge,
      platform: linuxPlatform(),
      sandbox,
      boxDir: changedBox,
      dataDir,
      workDir: changedBox,
    });
    expect(good.build.ok, good.build.log).toBe(true);
    expect(await runBinary(good.binary!)).toBe(expected);
    expect(await snapshot(store)).toEqual(before);
  });
});

describe('the process limit', () => {
  it('a tree of several .cpp files still builds within a small limit (maxsubarray: 8)', async () => {
    const small = await loadChallenge('maxsubarray');
    expect(small.manifest.limits.processes).toBe(8);
    const box = await mkdtemp(path.join(tmp, 'box-'));
    await chmod(box, 0o755);
    await cp(small.templateDir, path.join(box, 'src'), { recursive: true });
    // Each unit through the launcher is two processes: without a cap on the jobs this exceeds 8.
    for (let i = 0; i < 4; i++)
      await writeFile(
        path.join(box, 'src', `extra${i}.cpp`),
        `#include <map>\n#include <string>\nint extra${i}() { std::map<std::string, int> m; return m["a"] + ${i}; }\n`,
      );
    const built = await buildSolution({
      challenge: small,
      platform: {
        toolchain: small.manifest.targets['linux-intel']!.toolchain,
        buildMounts: [],
      } as unknown as TargetPlatform,
      sandbox,
      boxDir: box,
      dataDir,
      workDir: box,
    });
    expect(built.limitExceeded).toBe(null);
    expect(built.build.ok, built.build.log).toBe(true);
    expect(built.build.log).toContain('-DCMAKE_CXX_COMPILER_LAUNCHER=ccache');
  });
});

describe('the MinGW cross build through the compile cache', () => {
  it('reuses the template units for windows-amd', async (context) => {
    if (!(await canCrossCompile())) return context.skip();
    const target = challenge.manifest.targets['windows-amd'];
    if (!target) return context.skip();
    const mingw = mingwBuild(target.toolchain);
    await mkdir(dataDir, { recursive: true });
    const box = await makeBox();
    const { ok, log, results } = await buildWithLog(box, mingw);
    expect(ok, log).toBe(true);
    expect(log).toMatch(/ccache \S*x86_64-w64-mingw32-g\+\+-posix/);
    expect(log).not.toContain('Detecting CXX compiler ABI info');
    expect(Object.fromEntries(results)).toEqual({
      'main.cpp': 'direct_cache_hit',
      'init.cpp': 'direct_cache_hit',
      'wordcount.cpp': 'direct_cache_hit',
    });
  });
});

describe("the compiler's identity (the cache's compiler check)", () => {
  it('is computed once per process, and again when the compiler changes', async () => {
    // A stand-in compiler that counts its starts: `-v` is its banner, it has no cc1plus.
    const dir = await mkdtemp(path.join(tmp, 'cxx-'));
    const cxx = path.join(dir, 'fake-c++');
    const starts = path.join(dir, 'starts');
    const script = (version: string) =>
      `#!/bin/sh\necho started >> ${starts}\n[ "$1" = -v ] && echo "fake clang version ${version}" >&2\nexit 0\n`;
    await writeFile(cxx, script('1'), { mode: 0o755 });
    const count = async () =>
      (await readFile(starts, 'utf8').catch(() => '')).split('\n').length - 1;

    const first = await compilerIdentity(cxx);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    const spawned = await count();
    expect(spawned).toBeGreaterThan(0);
    expect(await compilerIdentity(cxx)).toBe(first);
    expect(await count(), 'the memo was not used').toBe(spawned);

    // An upgrade: another banner and size; the identity is computed again and differs.
    await writeFile(cxx, script('2.0'), { mode: 0o755 });
    const upgraded = await compilerIdentity(cxx);
    expect(await count()).toBeGreaterThan(spawned);
    expect(upgraded).not.toBe(first);
  });
});
