// The plausibility check end to end: a solution that answers the benchmark input
// without reading it (it recognises the file by its size and returns the answer computed
// beforehand) passes every test and every output check, and only the plausibility check can tell.
// Real judgings of the maxsubarray challenge (one line of output, so a cheat's run is only process
// start-up); and the real memory-bandwidth measurement with its per-host cache.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgingResultSchema, type JudgingResult } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import { plausibilityOf } from '../../lib/core/stats/plausibility';
import { referenceRange } from '../../challenges/maxsubarray/reference/maxsubarray-reference';
import { bandwidthCacheFile, hostMemoryBandwidth } from '../../runner/host/memory-bandwidth';
import { formatReport } from '../../runner/judge/format-report';
import { ensureInput } from '../../lib/core/challenge/inputs';
import { challengeWithLimits, judgeForTest, makePatch, TEST_DATA_DIR } from '../helpers/judging';

const BENCHMARK_BYTES = 64 << 20;
/**
 * The memory bandwidth these judgings assume: 64 MiB at 2 GB/s is a least time of 33.6 ms,
 * between a cheat's fastest run (0.04–1.6 ms on a quiet host, up to 16 ms on a loaded one: the
 * clock starts at exec, after the sandbox's set-up, but a loaded host delays the exec and exit
 * themselves) and the fast parser's (8.4–12.2 ms for 8 MiB measured on this VM, so about 70 ms
 * and more for 64 MiB), a factor of 2 from either. (At 8 MiB the least time was 4.2 ms, and
 * cheats on a loaded host took 7–16 ms: not flagged.) The host's measured figure (7–25 GB/s on
 * this VM: 3–10 ms for 64 MiB) must not flag the honest run either, tested below.
 */
const ASSUMED_BANDWIDTH = 2e9;

const FAST_PARSE = path.join(
  REPO_ROOT,
  'challenges/maxsubarray/submissions/accepted/fast-parse/maxsubarray.cpp',
);

let dir: string;
let honestPatch: string;
let cheatPatch: string;

/** fast-parse, answering the benchmark input from its size alone (it never opens the file). */
async function cheatSource(): Promise<string> {
  const challenge = await challengeWithLimits('maxsubarray');
  const input = await ensureInput(
    challenge,
    { seed: 'test-benchmark', sizeBytes: BENCHMARK_BYTES, rareSeparators: false },
    TEST_DATA_DIR,
  );
  const answer = await referenceRange(input.path);
  const { size } = await stat(input.path);
  const source = await readFile(FAST_PARSE, 'utf8');
  const signature = 'Range maxSubarray(const std::string &filePath) {';
  expect(source).toContain(signature);
  return `#include <filesystem>\n${source.replace(
    signature,
    `${signature}\n  std::error_code ec;\n  if (std::filesystem::file_size(filePath, ec) == ${size}u)\n` +
      `    return Range{${answer.sum}LL, ${answer.begin}, ${answer.end}};`,
  )}`;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-plausibility-'));
  honestPatch = await makePatch(
    { 'maxsubarray.cpp': await readFile(FAST_PARSE, 'utf8') },
    'maxsubarray',
  );
  cheatPatch = await makePatch({ 'maxsubarray.cpp': await cheatSource() }, 'maxsubarray');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function judgeMaxsubarray(patch: string, memoryBandwidth: number | null): Promise<JudgingResult> {
  return judgeForTest(patch, {
    challenge: 'maxsubarray',
    benchmarkBytes: BENCHMARK_BYTES,
    publicBytes: 256 << 10,
    runPolicy: { warmups: 1, minPairs: 3, maxPairs: 3, disturbance: { cpuTimeFallback: true } },
    memoryBandwidth,
    profile: false,
  });
}

describe('plausibility check on every judging', () => {
  it('flags a solution that prints the answer without reading its input, and says so in the report', async () => {
    const result = await judgeMaxsubarray(cheatPatch, ASSUMED_BANDWIDTH);
    // Every check a contestant's output faces is passed: the answer is right.
    expect(result.verdict, result.message).toBe('ACCEPTED');
    expect(judgingResultSchema.safeParse(result).success).toBe(true);
    const m = result.stages.measure!;
    const fastest = Math.min(
      ...m.runs
        .filter((r) => r.kind === 'timed' && r.side === 'solution')
        .map((r) => r.stats.wallMs),
    );
    expect(m.plausibility).toEqual({
      bandwidthBytesPerSecond: ASSUMED_BANDWIDTH,
      inputBytes: m.inputBytes,
      minPlausibleMs: (m.inputBytes / ASSUMED_BANDWIDTH) * 1000,
      fastestMs: fastest,
      flagged: true,
    });
    // Organizer-facing: the CLI report says it; the warnings every contestant reads do not.
    expect(formatReport(result)).toMatch(/FLAGGED, implausibly fast: fastest solution run/);
    expect(result.warnings.join('\n')).not.toMatch(/implausib/);
  });

  it('does not flag a fast solution that reads its input, at the assumed nor at the measured bandwidth', async () => {
    const result = await judgeMaxsubarray(honestPatch, ASSUMED_BANDWIDTH);
    expect(result.verdict, result.message).toBe('ACCEPTED');
    const p = result.stages.measure!.plausibility!;
    expect(p.flagged, JSON.stringify(p)).toBe(false);
    expect(p.fastestMs).toBeGreaterThan(p.minPlausibleMs);
    expect(formatReport(result)).toMatch(/ plausible: fastest solution run/);
    const measured = await hostMemoryBandwidth(TEST_DATA_DIR);
    expect(measured).not.toBeNull();
    expect(
      plausibilityOf({
        inputBytes: p.inputBytes,
        fastestMs: p.fastestMs,
        bandwidthBytesPerSecond: measured,
      })!.flagged,
    ).toBe(false);
  });

  it('an unknown bandwidth is recorded as null: not checked, never flagged', async () => {
    const result = await judgeMaxsubarray(cheatPatch, null);
    expect(result.verdict, result.message).toBe('ACCEPTED');
    expect(result.stages.measure!.plausibility).toBeNull();
    expect(formatReport(result)).toMatch(/plausibility: not checked/);
  });
});

describe('hostMemoryBandwidth', () => {
  it('measures once, then answers from the cache for this host; another host re-measures', async () => {
    const dataDir = path.join(dir, 'data');
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const first = await hostMemoryBandwidth(dataDir, { log });
    // Any real host reads memory at more than 0.5 GB/s and less than 2 TB/s.
    expect(first).toBeGreaterThan(5e8);
    expect(first).toBeLessThan(2e12);
    expect(lines).toEqual([
      expect.stringMatching(/^memory bandwidth: [\d.]+ GB\/s sequential read/),
    ]);
    const file = bandwidthCacheFile(dataDir);
    const cache = JSON.parse(await readFile(file, 'utf8'));
    expect(cache).toMatchObject({ bytesPerSecond: first, host: { kernel: os.release() } });

    // The cached figure of this host is the answer: nothing is measured (a figure no measurement
    // here would give tells).
    await writeFile(file, JSON.stringify({ ...cache, bytesPerSecond: 1234567890 }));
    expect(await hostMemoryBandwidth(dataDir, { log })).toBe(1234567890);
    expect(lines).toHaveLength(1);

    // A figure another host (or this one before a kernel upgrade) measured is not this host's.
    await writeFile(
      file,
      JSON.stringify({
        ...cache,
        bytesPerSecond: 1234567890,
        host: { ...cache.host, kernel: 'x' },
      }),
    );
    const again = await hostMemoryBandwidth(dataDir, { log });
    expect(again).not.toBe(1234567890);
    expect(again).toBeGreaterThan(5e8);
    expect(lines).toHaveLength(2);
    // A damaged cache file is measured over, not trusted.
    await writeFile(file, '{"bytesPerSecond": 1234567890');
    expect(await hostMemoryBandwidth(dataDir, { log })).not.toBe(1234567890);
  });

  it('is null, with the reason logged, when the program cannot be built', async () => {
    // A data dir whose bin folder cannot be created (a file is in its way).
    const dataDir = path.join(dir, 'blocked');
    await mkdir(dataDir, { recursive: true });
    await writeFile(path.join(dataDir, 'bin'), 'not a folder');
    const lines: string[] = [];
    expect(await hostMemoryBandwidth(dataDir, { log: (l) => lines.push(l) })).toBeNull();
    expect(lines.join('\n')).toMatch(/memory bandwidth: not measured, so no plausibility check/);
  });
});
