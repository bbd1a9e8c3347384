// The memory profile run through the real bubblewrap sandbox: a program that allocates in steps, one
// that tampers with the samples file, one that crashes, and the real wordcount baseline.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Limits } from '../../contracts';
import { cachedBuild } from '../../runner/build';
import { ensureInput } from '../../lib/core/challenge/inputs';
import { runProgram } from '../../runner/sandbox/run-program';
import { profileMemory } from '../../runner/measure/memory-profile';
import { createSandbox } from '../../runner/sandbox';
import { TEST_DATA_DIR, wordcountChallenge } from '../helpers/judging';

const execFileAsync = promisify(execFile);
const MiB = 1 << 20;

// Reads its plan from the input file: "steps N MIB" allocates and touches N blocks of MIB MiB, one
// every 200 ms, then frees them all; "tamper" swaps the samples file for a link to a host file;
// "crash" dies of SIGSEGV.
const PROGRAM = String.raw`#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>
int main(int argc, char **argv) {
  if (argc < 2) return 2;
  FILE *in = std::fopen(argv[1], "r");
  char mode[16] = {0};
  int n = 0, mib = 0;
  if (!in || std::fscanf(in, "%15s %d %d", mode, &n, &mib) < 1) return 3;
  if (std::string(mode) == "crash") std::raise(SIGSEGV);
  if (std::string(mode) == "tamper") {
    FILE *f = std::fopen(".memory-samples.txt", "a");
    if (f) { std::fputs("garbage\n99999 1 1 1 1\n", f); std::fclose(f); }
    unlink(".memory-samples.txt");
    if (symlink("/etc/ld.so.cache", ".memory-samples.txt") != 0) return 4;
    std::puts("tampered");
    return 0;
  }
  const size_t step = size_t(mib) << 20;
  std::vector<char *> blocks;
  for (int i = 0; i < n; i++) {
    void *p = mmap(nullptr, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 5;
    madvise(p, step, MADV_HUGEPAGE); // THP shows up where the host allows it (madvise or always)
    std::memset(p, 1, step);
    blocks.push_back(static_cast<char *>(p));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (char *p : blocks) munmap(p, step);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::puts("done");
  return 0;
}
`;

const sandbox = createSandbox('bubblewrap');
let dir: string;
let program: string;
let limits: Limits;

async function inputFile(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text, { mode: 0o644 });
  return file;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

beforeAll(async () => {
  limits = (await wordcountChallenge()).manifest.limits;
  // Bind-mounted sources are opened as the sandbox user: the directory must be reachable by it.
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-memory-'));
  await chmod(dir, 0o755);
  await writeFile(path.join(dir, 'steps.cpp'), PROGRAM);
  program = path.join(dir, 'steps');
  await execFileAsync('clang++', ['-O2', '-std=c++17', '-o', program, path.join(dir, 'steps.cpp')]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('profileMemory', () => {
  it('follows a program that allocates 5 × 50 MiB in steps and frees it', async () => {
    const input = await inputFile('steps.txt', 'steps 5 50\n');
    const { profile, run, sampling, notes } = await profileMemory({
      sandbox,
      binary: program,
      input,
      workDir: dir,
      limits,
      wallTimeMs: 30_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdoutSha256).toBe(sha256('done\n'));

    expect(profile.intervalMs).toBe(5);
    expect(profile.points.length).toBeGreaterThanOrEqual(20);
    expect(profile.points.length).toBeLessThanOrEqual(500);
    expect(profile.samples).toBeGreaterThanOrEqual(profile.points.length);
    // 5 steps of 200 ms at least, plus the final pause.
    expect(profile.durationMs).toBeGreaterThan(1100);
    // Not longer than the run, but for the gap between the sampler's start and the exec it waits
    // for (a few ms, more on a busy host: 15 ms seen at load 10).
    expect(profile.durationMs).toBeLessThanOrEqual(run.wallTimeMs + 50);
    expect(sampling.meanIntervalMs).not.toBeNull();
    expect(sampling.meanIntervalMs!).toBeLessThanOrEqual(10);
    expect(profile.durationMs / profile.samples).toBeLessThanOrEqual(10);

    const allocated = 250 * MiB;
    expect(profile.peaks.rssBytes).toBeGreaterThanOrEqual(allocated * 0.98);
    expect(profile.peaks.rssBytes).toBeLessThan(allocated + 64 * MiB);
    expect(profile.peaks.anonBytes).toBeGreaterThanOrEqual(allocated * 0.98);
    expect(profile.peaks.vmBytes).toBeGreaterThanOrEqual(profile.peaks.rssBytes);
    // The kernel's own peak (rusage of the whole tree) agrees with the sampled one.
    expect(run.maxRssBytes).toBeGreaterThanOrEqual(profile.peaks.rssBytes * 0.95);

    // Rises, then falls: small at the start, the peak in the middle, small again at the end.
    const rss = profile.points.map((p) => p.rssBytes);
    const top = rss.indexOf(Math.max(...rss));
    expect(rss[0]!).toBeLessThan(allocated / 4);
    expect(rss.at(-1)!).toBeLessThan(allocated / 4);
    expect(top).toBeGreaterThan(0);
    expect(top).toBeLessThan(rss.length - 1);
    const quarter = profile.points.find((p) => p.tMs >= profile.points[top]!.tMs / 4)!;
    expect(quarter.rssBytes).toBeLessThan(rss[top]! * 0.75);
    for (let i = 1; i < profile.points.length; i++) {
      expect(profile.points[i]!.tMs).toBeGreaterThan(profile.points[i - 1]!.tMs);
    }

    // Huge pages are measured (0 where the host's THP setting gives none).
    for (const p of profile.points) expect(p.thpBytes).toBeGreaterThanOrEqual(0);
    expect(sampling.thpSource).toBe('rollup');
    expect(profile.peaks.thpBytes).toBeLessThanOrEqual(profile.peaks.anonBytes);
    console.log(
      `steps: ${profile.samples} samples over ${profile.durationMs.toFixed(0)} ms, mean interval ` +
        `${sampling.meanIntervalMs!.toFixed(2)} ms, max gap ${sampling.maxGapMs!.toFixed(2)} ms, ` +
        `peak RSS ${(profile.peaks.rssBytes / MiB).toFixed(1)} MiB, THP ${(profile.peaks.thpBytes / MiB).toFixed(1)} MiB, ` +
        `run ${run.wallTimeMs.toFixed(0)} ms; notes: ${notes.join('; ') || 'none'}`,
    );
  });

  it('falls back to summing /proc/PID/smaps for huge pages, and says so', async () => {
    const input = await inputFile('small.txt', 'steps 2 20\n');
    const { profile, run, sampling, notes } = await profileMemory({
      sandbox,
      binary: program,
      input,
      workDir: dir,
      limits,
      wallTimeMs: 30_000,
      intervalMs: 2,
      thpFrom: 'smaps',
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(sampling.thpSource).toBe('smaps');
    expect(notes.some((n) => n.includes('/proc/PID/smaps'))).toBe(true);
    expect(profile.intervalMs).toBe(2);
    expect(profile.peaks.rssBytes).toBeGreaterThanOrEqual(40 * MiB * 0.98);
    expect(sampling.meanIntervalMs!).toBeLessThanOrEqual(5);
  });

  it('survives a program that replaces the samples file with a link to a host file', async () => {
    const input = await inputFile('tamper.txt', 'tamper\n');
    const { profile, run, notes } = await profileMemory({
      sandbox,
      binary: program,
      input,
      workDir: dir,
      limits,
      wallTimeMs: 30_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdoutSha256).toBe(sha256('tampered\n'));
    expect(profile.samples).toBe(0);
    expect(profile.points).toEqual([]);
    expect(notes).toContain('memory profile: the sampler left no samples file');
  });

  it('keeps the samples taken before a time limit killed the run', async () => {
    const input = await inputFile('slow.txt', 'steps 10 8\n');
    const { profile, run, notes } = await profileMemory({
      sandbox,
      binary: program,
      input,
      workDir: dir,
      limits,
      wallTimeMs: 700,
    });
    expect(run.limitExceeded).toBe('time');
    // Flushed every 20 samples: all but the last ~100 ms survive the kill.
    expect(profile.samples).toBeGreaterThanOrEqual(40);
    expect(profile.peaks.rssBytes).toBeGreaterThanOrEqual(16 * MiB);
    expect(notes).toContain('memory profile: the run stopped at the time limit');
    expect(notes).toContain('memory profile: the sampler did not finish; the series ends early');
  });

  it('reports the program’s own death by signal', async () => {
    const input = await inputFile('crash.txt', 'crash\n');
    const { run } = await profileMemory({
      sandbox,
      binary: program,
      input,
      workDir: dir,
      limits,
      wallTimeMs: 30_000,
    });
    expect(run.signal).toBe('SIGSEGV');
    expect(run.exitCode).toBeNull();
  });

  it('profiles the wordcount baseline on a small generated input', async () => {
    const challenge = await wordcountChallenge();
    const built = await cachedBuild({
      challenge,
      sourceDir: challenge.templateDir,
      toolchain: challenge.manifest.targets['linux-intel']!.toolchain,
      solution: false,
      cacheRoot: path.join(TEST_DATA_DIR, 'builds'),
    });
    expect(built.ok, built.log).toBe(true);
    const input = await ensureInput(
      challenge,
      { seed: 'test-memory-profile', sizeBytes: 4 * MiB, rareSeparators: false },
      TEST_DATA_DIR,
    );
    const plain = await runProgram({
      sandbox,
      binary: built.binary!,
      input: input.path,
      workDir: dir,
      limits,
      wallTimeMs: 60_000,
      stdout: 'hash',
    });
    const { profile, run, sampling, notes } = await profileMemory({
      sandbox,
      binary: built.binary!,
      input: input.path,
      workDir: dir,
      limits,
      wallTimeMs: 60_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    // Same output as an ordinary run: the sampler changes nothing the program sees.
    expect(run.stdoutSha256).toBe(plain.stdoutSha256);
    expect(run.stdoutBytes).toBe(plain.stdoutBytes);

    expect(profile.samples).toBeGreaterThanOrEqual(3);
    expect(profile.points.length).toBe(Math.min(profile.samples, 500));
    expect(sampling.meanIntervalMs!).toBeLessThanOrEqual(10);
    // A hash map of a few MiB of words: more than the bare binary, far less than the limit.
    expect(profile.peaks.rssBytes).toBeGreaterThan(2 * MiB);
    expect(profile.peaks.rssBytes).toBeLessThanOrEqual(run.maxRssBytes * 1.05);
    expect(profile.peaks.rssBytes).toBeGreaterThanOrEqual(run.maxRssBytes * 0.5);
    for (const p of profile.points) {
      expect(p.vmBytes).toBeGreaterThanOrEqual(p.rssBytes);
      expect(p.anonBytes).toBeLessThanOrEqual(p.rssBytes);
    }
    console.log(
      `wordcount baseline, 4 MiB: ${profile.samples} samples, mean interval ` +
        `${sampling.meanIntervalMs!.toFixed(2)} ms, peak RSS ${(profile.peaks.rssBytes / MiB).toFixed(1)} MiB ` +
        `(rusage ${(run.maxRssBytes / MiB).toFixed(1)} MiB), wall ${run.wallTimeMs.toFixed(1)} ms ` +
        `(without sampling ${plain.wallTimeMs.toFixed(1)} ms); notes: ${notes.join('; ') || 'none'}`,
    );
  });

  it('rejects an interval the chart cannot use', async () => {
    await expect(
      profileMemory({
        sandbox,
        binary: program,
        input: program,
        workDir: dir,
        limits,
        intervalMs: 20,
      }),
    ).rejects.toThrow(RangeError);
  });
});
