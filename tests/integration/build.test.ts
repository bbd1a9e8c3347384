// The build library and the wordcount harness against real clang++, cmake and ninja: the baseline's
// exact output, the driver's errors, the cache, compile errors and the generic driver on fixture trees.
import { spawn, type StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Toolchain } from '../../contracts';
import { loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';
import {
  buildChallengeTree,
  cachedBuild,
  compilerVersion,
  computeBuildKey,
  createSpawnExecutor,
  spawnExecutor,
  type CachedBuildResult,
} from '../../runner/build';

const FIXTURE_TREES = fileURLToPath(new URL('../fixtures/trees', import.meta.url));

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

function runProcess(command: string, args: string[], stdio?: StdioOptions): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: stdio ?? ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

// Separators are exactly the six ASCII whitespace bytes; U+00A0 and NUL stay inside words; ties
// are byte-wise (uppercase before lowercase, ASCII before multi-byte); no final newline.
const SMALL_INPUT = Buffer.from(
  'the cat\rthe\vdog\fthe\u00a0end  Zebra\tzebra \u00e9t\u00e9\n\na\0b a\0b',
  'utf8',
);
const SMALL_EXPECTED = Buffer.from(
  'a\0b\t2\nthe\t2\nZebra\t1\ncat\t1\ndog\t1\nthe\u00a0end\t1\nzebra\t1\n\u00e9t\u00e9\t1\n',
  'utf8',
);

/** More than the driver's 1 MiB buffer of output, and one word longer than the buffer. */
function bigInput(): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < 60_000; i++) {
    const word = `w${i}-${'x'.repeat(i % 23)}`;
    for (let k = 0; k <= i % 3; k++) parts.push(word, i % 5 === 0 ? '\n' : ' ');
  }
  parts.push('z'.repeat(1_300_000), '\n');
  return Buffer.from(parts.join(''), 'utf8');
}

let challenge: Challenge;
let toolchain: Toolchain;
let tmp: string;
let cacheRoot: string;
let baseline: CachedBuildResult;
let baselineBinary: string;
let smallInput: string;
let bigInputFile: string;

beforeAll(async () => {
  challenge = await loadChallenge('wordcount');
  const target = challenge.manifest.targets['linux-intel'];
  if (!target) throw new Error('the wordcount manifest has no linux-intel target');
  toolchain = target.toolchain;
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-build-test-'));
  cacheRoot = path.join(tmp, 'cache');
  smallInput = path.join(tmp, 'small.txt');
  bigInputFile = path.join(tmp, 'big.txt');
  await writeFile(smallInput, SMALL_INPUT);
  await writeFile(bigInputFile, bigInput());
  baseline = await cachedBuild({
    challenge,
    sourceDir: challenge.templateDir,
    toolchain,
    solution: false,
    cacheRoot,
  });
  if (!baseline.ok || !baseline.binary) throw new Error(`baseline build failed:\n${baseline.log}`);
  baselineBinary = baseline.binary;
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the baseline with the harness', () => {
  it('builds with exactly the manifest flags and prints words by count, ties byte-wise', async () => {
    expect(baseline.cached).toBe(false);
    expect(baseline.log).toContain('-O3 -march=native -std=c++17 -DNDEBUG');
    expect(baseline.log).not.toContain('-DSOLUTION');
    // Nothing of CMake's own build-type flags (-O2, a second -DNDEBUG): the manifest's alone.
    expect(baseline.log).not.toMatch(/-O2/);
    expect(baseline.log.match(/-DNDEBUG/g)?.length).toBe(baseline.log.match(/-O3/g)?.length);
    const ran = await runProcess(baselineBinary, [smallInput]);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout.equals(SMALL_EXPECTED)).toBe(true);
  });

  it('prints the tie-break example exactly', async () => {
    const file = path.join(tmp, 'tie.txt');
    await writeFile(file, 'b a b\tc\n');
    const ran = await runProcess(baselineBinary, [file]);
    expect(ran.stdout.toString('utf8')).toBe('b\t2\na\t1\nc\t1\n');
  });

  it('prints nothing for an empty file', async () => {
    const file = path.join(tmp, 'empty.txt');
    await writeFile(file, ' \n\t ');
    const ran = await runProcess(baselineBinary, [file]);
    expect(ran.code).toBe(0);
    expect(ran.stdout.length).toBe(0);
  });

  it('reports a missing input or a folder before the solution runs, exit 1', async () => {
    const missing = path.join(tmp, 'no-such-file.txt');
    const ran = await runProcess(baselineBinary, [missing]);
    expect(ran.code).toBe(1);
    expect(ran.stdout.length).toBe(0);
    // The baseline itself would have said "Invalid input file": the driver spoke first.
    expect(ran.stderr).toBe(`wordcount: cannot open ${missing}: No such file or directory\n`);

    const folder = await runProcess(baselineBinary, [tmp]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toBe(`wordcount: cannot open ${tmp}: Is a directory\n`);
  });

  it('refuses a wrong argument count', async () => {
    const ran = await runProcess(baselineBinary, []);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/usage: .*wordcount <input file>/);
  });

  it('exits non-zero when stdout cannot be written', async () => {
    const full = await open('/dev/full', 'w');
    try {
      const ran = await runProcess(baselineBinary, [smallInput], ['ignore', full.fd, 'pipe']);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain('wordcount: cannot write the output: No space left on device');
    } finally {
      await full.close();
    }
  });
});

describe('the build cache', () => {
  it('reuses a build: the second call builds nothing', async () => {
    const before = await stat(baselineBinary);
    const again = await cachedBuild({
      challenge,
      sourceDir: challenge.templateDir,
      toolchain,
      solution: false,
      cacheRoot,
    });
    expect(again.ok).toBe(true);
    expect(again.cached).toBe(true);
    expect(again.key).toBe(baseline.key);
    expect(again.binary).toBe(baselineBinary);
    expect(again.log).toBe(baseline.log);
    expect((await stat(baselineBinary)).mtimeMs).toBe(before.mtimeMs);
    expect(again.durationMs).toBeLessThan(baseline.durationMs);
  });

  it('keys on the tree, the branch and the flags, not on folders outside the source', async () => {
    const version = await compilerVersion(toolchain, { cwd: tmp });
    if (!version.ok) throw new Error(version.message);
    expect(version.version).toMatch(/clang version/);

    const tree = path.join(tmp, 'key-tree');
    await cp(challenge.templateDir, tree, { recursive: true });
    const input = {
      challenge,
      sourceDir: tree,
      toolchain,
      solution: true,
      compilerVersion: version.version,
    };
    const key = await computeBuildKey(input);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await computeBuildKey(input)).toBe(key);
    expect(await computeBuildKey({ ...input, solution: false })).not.toBe(key);
    expect(
      await computeBuildKey({
        ...input,
        toolchain: { ...toolchain, flags: ['-O2', '-std=c++17'] },
      }),
    ).not.toBe(key);
    expect(await computeBuildKey({ ...input, compilerVersion: 'clang version 99' })).not.toBe(key);

    // Version control and a build folder in a working copy are not sources.
    await mkdir(path.join(tree, '.git'));
    await writeFile(path.join(tree, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await mkdir(path.join(tree, 'build'));
    await writeFile(path.join(tree, 'build', 'CMakeCache.txt'), '# cache\n');
    expect(await computeBuildKey(input)).toBe(key);

    await writeFile(path.join(tree, 'init.cpp'), '#include "wordcount.hpp"\nvoid init() { }\n');
    const edited = await computeBuildKey(input);
    expect(edited).not.toBe(key);
    await writeFile(path.join(tree, 'helper.hpp'), '#pragma once\n');
    expect(await computeBuildKey(input)).not.toBe(edited);
  });
});

describe('build failures', () => {
  it('returns ok:false with the compiler message for a tree that does not compile', async () => {
    const result = await buildChallengeTree({
      challenge,
      sourceDir: path.join(FIXTURE_TREES, 'compile-error'),
      toolchain,
      solution: true,
      outDir: path.join(tmp, 'compile-error'),
    });
    expect(result.ok).toBe(false);
    expect(result.binary).toBeUndefined();
    expect(result.failure).toBe('compile');
    expect(result.message).toBe('build failed with exit code 1');
    expect(result.log).toContain("error: use of undeclared identifier 'countTheWordsOf'");
    expect(result.log).toContain('-DSOLUTION');
    expect(result.commands).toHaveLength(2);
  });

  it('says clearly that clang-cl is not supported here, without running anything', async () => {
    const windows = challenge.manifest.targets['windows-amd'];
    if (!windows) throw new Error('the wordcount manifest has no windows-amd target');
    const ran: string[] = [];
    const result = await cachedBuild({
      challenge,
      sourceDir: challenge.templateDir,
      toolchain: windows.toolchain,
      solution: false,
      cacheRoot,
      executor: (command, args, options) => {
        ran.push(command);
        return spawnExecutor(command, args, options);
      },
    });
    expect(result.ok).toBe(false);
    expect(result.failure).toBe('unsupported');
    expect(result.message).toMatch(/clang-cl .*not supported by this host/);
    expect(ran).toEqual([]);
  });

  it('reports a compiler that is not installed as the platform fault', async () => {
    const result = await cachedBuild({
      challenge,
      sourceDir: challenge.templateDir,
      toolchain: { ...toolchain, cxx: 'no-such-compiler++' },
      solution: false,
      cacheRoot,
    });
    expect(result.ok).toBe(false);
    expect(result.failure).toBe('tool');
    expect(result.message).toBe(
      'cannot get the version of no-such-compiler++: cannot run no-such-compiler++: not found',
    );
  });
});

describe('the spawn executor', () => {
  it('kills the whole process group on timeout', async () => {
    const result = await spawnExecutor('sh', ['-c', 'sleep 30 & echo $!; wait'], {
      cwd: tmp,
      timeoutMs: 500,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGKILL');
    expect(result.durationMs).toBeLessThan(5000);
    const grandchild = Number(result.output.trim());
    expect(grandchild).toBeGreaterThan(0);
    // A killed process whose parent died waits as a zombie until init reaps it (some container
    // inits are slow to): a zombie runs nothing, so it counts as dead.
    const alive = () => {
      try {
        const state = readFileSync(`/proc/${grandchild}/stat`, 'utf8').split(') ')[1]?.[0];
        return state !== undefined && state !== 'Z';
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive()).toBe(false);
  });

  it('caps the output and says how much it dropped', async () => {
    const executor = createSpawnExecutor({ outputCapBytes: 1000 });
    const result = await executor(
      'sh',
      ['-c', 'head -c 5000 /dev/zero | tr "\\0" a; echo oops >&2'],
      {
        cwd: tmp,
        timeoutMs: 10_000,
      },
    );
    expect(result.exitCode).toBe(0);
    expect(result.output.startsWith('a'.repeat(1000))).toBe(true);
    expect(result.output).toMatch(/\[\.\.\. 400\d more bytes of output dropped\]/);
  });

  it('reports a command that cannot start', async () => {
    const result = await spawnExecutor('no-such-command-here', [], { cwd: tmp, timeoutMs: 10_000 });
    expect(result.exitCode).toBeNull();
    expect(result.spawnError).toBe('cannot run no-such-command-here: not found');
  });
});

describe('the generic driver with solution trees', () => {
  let bigExpected: Buffer;

  beforeAll(async () => {
    const ran = await runProcess(baselineBinary, [bigInputFile]);
    if (ran.code !== 0) throw new Error(`baseline failed on the big input: ${ran.stderr}`);
    bigExpected = ran.stdout;
  });

  it('has a big input whose output crosses the driver buffer', () => {
    expect(bigExpected.length).toBeGreaterThan(2 << 20);
  });

  const expectRightOutput = async (binary: string) => {
    const small = await runProcess(binary, [smallInput]);
    expect(small.stderr).toBe('');
    expect(small.code).toBe(0);
    expect(small.stdout.equals(SMALL_EXPECTED)).toBe(true);

    const big = await runProcess(binary, [bigInputFile]);
    expect(big.code).toBe(0);
    expect(big.stdout.length).toBe(bigExpected.length);
    expect(big.stdout.equals(bigExpected)).toBe(true);
  };

  it.each([
    ['custom-container', 'an own container of string_view words'],
    ['own-string-type', 'an own string type printed with operator<< and long counts'],
  ])('%s (%s) builds with the unchanged harness and prints the right output', async (tree) => {
    const result = await buildChallengeTree({
      challenge,
      sourceDir: path.join(FIXTURE_TREES, tree),
      toolchain,
      solution: true,
      outDir: path.join(tmp, `tree-${tree}`),
    });
    if (!result.ok || !result.binary) throw new Error(`build of ${tree} failed:\n${result.log}`);
    expect(result.log).toContain('-DSOLUTION');
    await expectRightOutput(result.binary);
  });

  it('wide-count (std::size_t counts), built by two racing cached builds, prints the right output', async () => {
    const options = {
      challenge,
      sourceDir: path.join(FIXTURE_TREES, 'wide-count'),
      toolchain,
      solution: true,
      cacheRoot,
    };
    const [first, second] = await Promise.all([cachedBuild(options), cachedBuild(options)]);
    if (!first.ok || !first.binary) throw new Error(`build failed:\n${first.log}`);
    expect(second.ok).toBe(true);
    expect(second.key).toBe(first.key);
    expect(second.binary).toBe(first.binary);
    expect(path.dirname(first.binary)).toBe(path.join(cacheRoot, first.key));
    // Both built (neither found the other's result in time); the loser's temporary folder is gone.
    expect([first.cached, second.cached]).toEqual([false, false]);
    expect(await readdir(path.join(cacheRoot, '.tmp'))).toEqual([]);
    await expectRightOutput(first.binary);
  });
});
