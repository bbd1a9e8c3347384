// The judge pipeline end to end on real patches: result shape, progress, cancellation, the CLI.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgingResultSchema, type ProgressEvent } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import { formatReport } from '../../runner/judge/format-report';
import { judge } from '../../runner/judge/judge';
import { acquireHostLock, hostLockQueueDir } from '../../runner/service/host-lock';
import { createSandbox } from '../../runner/sandbox';
import {
  judgeForTest,
  makePatch,
  solutionSource,
  TEST_DATA_DIR,
  wordcountChallenge,
} from '../helpers/judging';

const execFileAsync = promisify(execFile);

// Correct and faster: one read of the whole file, a table of the six separators, string_view keys.
const FAST_SOLUTION = `
#include <cstdio>
#include <string_view>

std::vector<WordCount> wordcount(std::string filePath) {
  std::vector<WordCount> out;
  std::FILE *f = std::fopen(filePath.c_str(), "rb");
  if (!f) return out;
  std::string data;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  std::fclose(f);
  bool sep[256] = {};
  for (unsigned char c : {' ', '\\t', '\\n', '\\v', '\\f', '\\r'}) sep[c] = true;
  std::unordered_map<std::string_view, int> counts;
  counts.reserve(1 << 16);
  const char *p = data.data(), *end = p + data.size();
  while (p < end) {
    while (p < end && sep[(unsigned char)*p]) ++p;
    const char *start = p;
    while (p < end && !sep[(unsigned char)*p]) ++p;
    if (p > start) ++counts[std::string_view(start, p - start)];
  }
  out.reserve(counts.size());
  for (auto &kv : counts) out.push_back(WordCount{kv.second, std::string(kv.first)});
  std::sort(out.begin(), out.end(), std::greater<WordCount>());
  return out;
}
`;

let fastPatch: string;
let dir: string;

beforeAll(async () => {
  fastPatch = await makePatch({ 'wordcount.cpp': await solutionSource(FAST_SOLUTION) });
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-judge-test-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('judge', () => {
  it('accepts a correct patch with a speedup, every run checked, and a result the contract accepts', async () => {
    const events: ProgressEvent[] = [];
    const challenge = await wordcountChallenge();
    const result = await judge({
      challenge,
      target: 'linux-intel',
      patchText: fastPatch,
      sandbox: createSandbox('bubblewrap'),
      dataDir: TEST_DATA_DIR,
      benchmark: { seed: 'test-benchmark', sizeBytes: 2 << 20, rareSeparators: false },
      benchmarkSeedIsSecret: false,
      publicInput: { seed: 'test-public', sizeBytes: 1 << 20, rareSeparators: false },
      // A stated host drift: the interval includes it beside the pairs' own.
      runPolicy: { warmups: 1, minPairs: 4, maxPairs: 4, hostDrift: 0.02 },
      devMode: true,
      onProgress: (e) => events.push(e),
    });
    expect(result.verdict, result.message).toBe('ACCEPTED');
    expect(judgingResultSchema.safeParse(result).success).toBe(true);
    expect(result.stages.intake.files).toEqual([
      expect.objectContaining({ path: 'wordcount.cpp', change: 'modified' }),
    ]);
    expect(result.stages.build?.identicalBinaries).toBe(false);
    const cases = result.stages.test!.cases;
    expect(cases.length).toBeGreaterThan(20);
    expect(cases.every((c) => c.outcome === 'passed')).toBe(true);
    expect(cases.some((c) => c.group === 'public')).toBe(true);
    const m = result.stages.measure!;
    // The solution's warm-up (the baseline's is the session's), then pairs: each the round's
    // baseline run and the solution's, in the order drawn for the round. A pair disturbed by other
    // work on the CPU (the other test worker) is discarded and timed again, so there may be more
    // than four; four are used (all of them when the host was too busy and the CPU-time fallback
    // counted).
    const order = m.runs.map((r) => `${r.kind[0]}${r.side[0]}`).join(' ');
    expect(order).toMatch(/^ws( (tb ts|ts tb))+$/);
    expect(m.session).toMatchObject({ entrants: 1, sharedBaselineRuns: 0 });
    const used = m.runs.filter(
      (r) => r.kind === 'timed' && (!r.discarded || m.estimate!.basis === 'cpu-time'),
    );
    expect(m.runs.every((r) => r.correct)).toBe(true);
    expect(m.estimate!.pairs).toBe(used.length / 2);
    if (m.estimate!.basis === 'wall-time') expect(m.estimate!.pairs).toBe(4);
    expect(m.estimate!.ciLow).toBeLessThanOrEqual(m.estimate!.speedup);
    expect(m.estimate!.ciHigh).toBeGreaterThanOrEqual(m.estimate!.speedup);
    const drift = m.estimate!.hostDrift!;
    expect(drift.sdRel).toBe(0.02);
    expect(m.estimate!.ciLow).toBeLessThan(drift.statCiLow);
    expect(m.estimate!.ciHigh).toBeGreaterThan(drift.statCiHigh);
    // At least z · 2% each side, whatever the pairs gave.
    expect(m.estimate!.halfWidthRel).toBeGreaterThanOrEqual(1.95 * 0.02);
    expect(formatReport(result)).toContain(
      "the interval includes this host's drift between judgings",
    );
    expect(m.runs[0]!.stats.maxRssBytes).toBeGreaterThan(0);
    expect(result.host.devMode).toBe(true);
    expect(result.warnings.join('\n')).toMatch(/development mode/);
    expect(result.warnings.join('\n')).toMatch(/seed is not secret/);
    expect(new Set(events.map((e) => e.stage))).toEqual(
      new Set(['intake', 'build', 'test', 'measure', 'profile', 'report']),
    );
  });

  it('a wrong answer shows the first differing lines, expected vs got', async () => {
    // Sorting ties by descending word order breaks the ordering tests.
    const wrong = FAST_SOLUTION.replace(
      'std::sort(out.begin(), out.end(), std::greater<WordCount>());',
      'std::sort(out.begin(), out.end(), [](const WordCount &a, const WordCount &b) { return a.count != b.count ? a.count > b.count : a.word > b.word; });',
    );
    const result = await judgeForTest(
      await makePatch({ 'wordcount.cpp': await solutionSource(wrong) }),
      {
        publicBytes: null,
      },
    );
    expect(result.verdict).toBe('WRONG_ANSWER');
    const failed = result.stages.test!.cases.find((c) => c.outcome === 'wrong-answer')!;
    expect(failed.diff.length).toBeGreaterThan(0);
    expect(failed.diff[0]!.line).toBeGreaterThan(0);
    expect(failed.diff[0]!.expected).not.toEqual(failed.diff[0]!.got);
    expect(result.stages.measure).toBeNull();
  });

  it('a patch that does not compile is BUILD_ERROR with the compiler message', async () => {
    const result = await judgeForTest(
      await makePatch({ 'wordcount.cpp': await solutionSource('int oops = ;') }),
    );
    expect(result.verdict).toBe('BUILD_ERROR');
    expect(result.stages.build!.solution.log).toMatch(/error: expected expression/);
    expect(result.stages.test).toBeNull();
  });

  it('cancellation stops the judging as the platform, not the contestant', async () => {
    const controller = new AbortController();
    const pending = judgeForTest(fastPatch, {
      signal: controller.signal,
      runPolicy: { minPairs: 30, maxPairs: 30 },
    });
    setTimeout(() => controller.abort(), 1500);
    const result = await pending;
    expect(result.verdict).toBe('JUDGE_ERROR');
    expect(result.message).toMatch(/cancelled/);
  });
});

describe('perfjudge judge (CLI)', () => {
  const cli = path.join(REPO_ROOT, 'bin/perfjudge.mjs');
  // A private host lock: the machine's own may be held by runners that are not this test's.
  const lockFile = () => path.join(dir, 'host.lock');
  const run = (args: string[]) =>
    execFileAsync('node', [cli, 'judge', '--host-lock', lockFile(), ...args], {
      cwd: REPO_ROOT,
      maxBuffer: 64 << 20,
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  it('prints a report with the speedup and writes the typed result; exit 0 when accepted', async () => {
    const patch = path.join(dir, 'fast.patch');
    const json = path.join(dir, 'result.json');
    await writeFile(patch, fastPatch);
    const r = await run([
      '--patch',
      patch,
      '--input-size',
      '2MiB',
      '--public-size',
      '1MiB',
      '--runs',
      '3',
      // The contestant's quick loop: the profile without its most expensive part.
      '--no-cachegrind',
      '--json',
      json,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { version } = (await wordcountChallenge()).manifest;
    expect(r.stdout).toMatch(new RegExp(`^ACCEPTED +wordcount v${version} on linux-intel`));
    expect(r.stdout).toMatch(/Speedup \d+\.\d{3}× +\(\d+% CI \d+\.\d{3}–\d+\.\d{3}/);
    const result = judgingResultSchema.parse(JSON.parse(await readFile(json, 'utf8')));
    expect(result.verdict).toBe('ACCEPTED');
    // The plausibility check, with this host's measured memory bandwidth.
    expect(result.stages.measure?.plausibility?.flagged).toBe(false);
    expect(r.stdout).toMatch(/ plausible: fastest solution run .* GB\/s memory bandwidth/);
    // Left out as asked, and said so where cachegrind's counts would be.
    expect(result.stages.profile?.deterministic).toBeNull();
    expect(result.stages.profile?.notes).toContain(
      'cachegrind was not run: perfjudge judge --no-cachegrind',
    );
  });

  it('waits for the host lock the runners hold, and says so', async () => {
    const patch = path.join(dir, 'driver-locked.patch');
    await writeFile(patch, '--- a/main.cpp\n+++ b/main.cpp\n@@ -1 +1 @@\n-x\n+y\n');
    const held = await acquireHostLock({ file: lockFile(), owner: 'runner test-linux' });
    const pending = run(['--patch', patch]);
    // Released once the CLI has queued behind it (its ticket beside ours), however long a busy
    // host takes to start it, and a moment later so that it has said it waits.
    const queue = hostLockQueueDir(lockFile());
    const deadline = Date.now() + 60_000;
    while ((await readdir(queue)).filter((n) => /^\d{12}$/.test(n)).length < 2) {
      if (Date.now() > deadline) throw new Error('the CLI never queued for the host lock');
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    await held.release();
    const r = await pending;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /\[waiting\] for the host lock .*1 judging ahead, held by runner test-linux/,
    );
    expect(r.stderr).toMatch(/\[waiting\] the host is ours/);
  });

  it('exit 1 for a contestant fault, 2 for bad usage', async () => {
    const patch = path.join(dir, 'driver.patch');
    await writeFile(patch, '--- a/main.cpp\n+++ b/main.cpp\n@@ -1 +1 @@\n-x\n+y\n');
    const rejected = await run(['--patch', patch, '--quiet']);
    expect(rejected.code).toBe(1);
    expect(rejected.stdout).toMatch(/^REJECTED/);
    expect(rejected.stdout).toMatch(/main\.cpp/);
    expect((await run(['--patch', path.join(dir, 'missing.patch')])).code).toBe(2);
    expect((await run(['--patch', patch, '--input-size', 'huge'])).code).toBe(2);
  });
});
