// Deterministic mode for real: the wordcount baseline under valgrind's cachegrind inside the
// bubblewrap sandbox gives the same counts every time; binaries valgrind cannot run fail clearly.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachegrindCountsSchema, type Limits, type Toolchain } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { cachedBuild } from '../../runner/build';
import { ensureInput } from '../../lib/core/challenge/inputs';
import {
  CachegrindError,
  deterministicFlagsFor,
  readCapped,
  runCachegrind,
} from '../../runner/measure/cachegrind';
import { createSandbox } from '../../runner/sandbox';
import { TEST_DATA_DIR, wordcountChallenge } from '../helpers/judging';

const execFileAsync = promisify(execFile);
const sandbox = createSandbox('bubblewrap');

/** Executes one AVX-512 instruction (EVEX-encoded), which valgrind 3.19 cannot decode on any host. */
const AVX512_PROGRAM = `
#include <cstdio>
int main() {
  int out = 0;
  asm volatile("vpxord %%zmm0, %%zmm0, %%zmm0\\n\\tvmovd %%xmm0, %0" : "=r"(out) : : "xmm0");
  std::printf("%d\\n", out);
}
`;
const FAILING_PROGRAM = `
#include <cstdio>
int main() { std::puts("partial"); return 3; }
`;

let challenge: Challenge;
let toolchain: Toolchain;
let limits: Limits;
let baseline: string;
let input: string;
let dir: string;

async function buildBaseline(flags: string[]): Promise<string> {
  const built = await cachedBuild({
    challenge,
    sourceDir: challenge.templateDir,
    toolchain: { ...toolchain, flags },
    solution: false,
    cacheRoot: path.join(TEST_DATA_DIR, 'builds'),
  });
  expect(built.ok, built.log).toBe(true);
  return built.binary!;
}

async function compile(name: string, source: string): Promise<string> {
  await writeFile(path.join(dir, `${name}.cpp`), source);
  const binary = path.join(dir, name);
  await execFileAsync('clang++', ['-O2', '-o', binary, path.join(dir, `${name}.cpp`)]);
  return binary;
}

async function rejection(promise: Promise<unknown>): Promise<CachegrindError> {
  const error = await promise.then(
    () => new Error('expected runCachegrind to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CachegrindError);
  return error as CachegrindError;
}

beforeAll(async () => {
  await sandbox.check();
  challenge = await wordcountChallenge();
  toolchain = challenge.manifest.targets['linux-intel']!.toolchain;
  limits = challenge.manifest.limits;
  baseline = await buildBaseline(deterministicFlagsFor(toolchain));
  // The manifest's seed at a quarter of a MiB or so: enough work to mean something, seconds under valgrind.
  const generated = await ensureInput(
    challenge,
    {
      seed: challenge.manifest.inputs.deterministic.seed,
      sizeBytes: 512 << 10,
      rareSeparators: false,
    },
    TEST_DATA_DIR,
  );
  input = generated.path;
  // Bind-mounted sources are opened as the sandbox user: the directory must be reachable by it.
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-cachegrind-'));
  await chmod(dir, 0o755);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('runCachegrind on the wordcount baseline', () => {
  it('gives identical, non-zero counts on two runs in the sandbox', async () => {
    const run = await runCachegrind({ sandbox, binary: baseline, input, workDir: dir, limits });
    const again = await runCachegrind({ sandbox, binary: baseline, input, workDir: dir, limits });
    expect(again).toEqual(run);
    const first = run.counts;
    // Per function: demangled names, the hash table's code among the top, shares summing up.
    const names = run.hotspots.functions.map((f) => f.name);
    expect(names.some((n) => n.startsWith('std::'))).toBe(true);
    expect(names.some((n) => n.startsWith('_Z'))).toBe(false);
    expect(run.hotspots.totalInstructions).toBe(first.instructions);
    expect(cachegrindCountsSchema.parse(first)).toEqual(first);
    // ~80 million instructions for 512 KiB; every figure is counted, none is zero.
    expect(first.instructions).toBeGreaterThan(10_000_000);
    for (const [name, value] of Object.entries(first)) expect(value, name).toBeGreaterThan(0);
    expect(first.estimatedCycles).toBeGreaterThan(first.instructions);
    expect(first.branchMispredictions).toBeLessThan(first.branches);
  });

  it('gives the same counts whatever the work directory is called', async () => {
    const deeper = path.join(dir, 'a-much-longer-work-directory-name-than-the-other-one');
    await execFileAsync('mkdir', ['-m', '755', deeper]);
    const { counts: a } = await runCachegrind({
      sandbox,
      binary: baseline,
      input,
      workDir: dir,
      limits,
    });
    const { counts: b } = await runCachegrind({
      sandbox,
      binary: baseline,
      input,
      workDir: deeper,
      limits,
    });
    expect(b).toEqual(a);
  });

  it('runs a -march=native build, or says clearly that valgrind cannot decode it', async () => {
    const native = await buildBaseline(toolchain.flags);
    try {
      const { counts } = await runCachegrind({
        sandbox,
        binary: native,
        input,
        workDir: dir,
        limits,
      });
      expect(counts.instructions).toBeGreaterThan(10_000_000);
    } catch (error) {
      expect(error).toBeInstanceOf(CachegrindError);
      expect((error as CachegrindError).kind).toBe('unsupported-instruction');
    }
  });

  it("measures the manifest's deterministic input within a minute", async () => {
    const spec = challenge.manifest.inputs.deterministic;
    const full = await ensureInput(
      challenge,
      { seed: spec.seed, sizeBytes: spec.size, rareSeparators: false },
      TEST_DATA_DIR,
    );
    const started = performance.now();
    const { counts } = await runCachegrind({
      sandbox,
      binary: baseline,
      input: full.path,
      workDir: dir,
      limits,
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `cachegrind, baseline, ${spec.size} bytes: ${seconds.toFixed(1)} s, ` +
        `${counts.instructions} instructions, ${counts.estimatedCycles} estimated cycles`,
    );
    expect(seconds).toBeLessThan(60);
    expect(counts.instructions).toBeGreaterThan(100_000_000);
  });
});

describe('runCachegrind failures', () => {
  it('reports an AVX-512 instruction as unsupported, suggesting the deterministic flags', async () => {
    const program = await compile('avx512', AVX512_PROGRAM);
    const error = await rejection(
      runCachegrind({ sandbox, binary: program, input, workDir: dir, limits }),
    );
    expect(error.kind).toBe('unsupported-instruction');
    expect(error.message).toMatch(/cannot decode.*0x62.*-march=x86-64-v3/);
  });

  it('reports a program that fails under valgrind', async () => {
    const program = await compile('failing', FAILING_PROGRAM);
    const error = await rejection(
      runCachegrind({ sandbox, binary: program, input, workDir: dir, limits }),
    );
    expect(error.kind).toBe('program-failed');
    expect(error.message).toMatch(/exited with code 3 under valgrind/);
  });

  it('reports a time limit', async () => {
    const error = await rejection(
      runCachegrind({ sandbox, binary: baseline, input, workDir: dir, limits, wallTimeMs: 200 }),
    );
    expect(error.kind).toBe('limit');
  });

  it('says when valgrind is missing', async () => {
    const error = await rejection(
      runCachegrind({
        sandbox,
        binary: baseline,
        input,
        workDir: dir,
        limits,
        valgrind: '/usr/bin/no-such-valgrind',
      }),
    );
    expect(error.kind).toBe('unavailable');
  });
});

describe('readCapped', () => {
  it('reads a regular file but never a link, a FIFO or an oversized file', async () => {
    const file = path.join(dir, 'plain.out');
    await writeFile(file, 'summary: 1\n');
    expect(await readCapped(file, 1024)).toBe('summary: 1\n');
    expect(await readCapped(file, 4)).toBeNull();
    const link = path.join(dir, 'link.out');
    await symlink(file, link);
    expect(await readCapped(link, 1024)).toBeNull();
    const fifo = path.join(dir, 'fifo.out');
    await execFileAsync('mkfifo', [fifo]);
    expect(await readCapped(fifo, 1024)).toBeNull();
    expect(await readCapped(path.join(dir, 'missing.out'), 1024)).toBeNull();
  });
});
