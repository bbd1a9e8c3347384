// The baseline's profile runs are done once per host, challenge version and toolchain: the cache on
// its own (hit, miss on another key, a damaged file replaced), and through two real judgings whose
// second reuses the first one's baseline memory series and cachegrind counts.
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baselineProfileKey,
  cachedBaselineProfile,
  type BaselineProfileKey,
} from '../../runner/judge/baseline-profile-cache';
import { judge } from '../../runner/judge/judge';
import { createSandbox } from '../../runner/sandbox';
import { makePatch, solutionSource, wordcountChallenge } from '../helpers/judging';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-profile-cache-'));
  // The sandbox's user reads the inputs generated under it.
  await chmod(dir, 0o755);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('baseline profile cache', () => {
  const schema = z.object({ n: z.number() });
  const key: BaselineProfileKey = { kind: 'memory', buildKey: 'b'.repeat(64), inputSha256: 'i' };

  it('runs once per key, again for another key, and replaces a damaged file', async () => {
    const dataDir = path.join(dir, 'unit');
    let runs = 0;
    const compute = async () => ({ n: ++runs });
    expect(await cachedBaselineProfile({ dataDir, key, schema, compute })).toEqual({
      value: { n: 1 },
      cached: false,
    });
    expect(await cachedBaselineProfile({ dataDir, key, schema, compute })).toEqual({
      value: { n: 1 },
      cached: true,
    });
    // Another input, or another build (toolchain, challenge version, CPU): not the same profile.
    const other = { ...key, inputSha256: 'j' };
    expect((await cachedBaselineProfile({ dataDir, key: other, schema, compute })).cached).toBe(
      false,
    );
    expect(
      (await cachedBaselineProfile({ dataDir, key: { ...key, buildKey: 'c' }, schema, compute }))
        .cached,
    ).toBe(false);
    expect(runs).toBe(3);
    // A file that does not parse is recomputed, never trusted.
    const file = path.join(dataDir, 'baseline-profiles', `memory-${baselineProfileKey(key)}.json`);
    await writeFile(file, '{"n":"not a number"}');
    expect(await cachedBaselineProfile({ dataDir, key, schema, compute })).toEqual({
      value: { n: 4 },
      cached: false,
    });
    // Without a build key (the compiler's version unknown) nothing is cached.
    const noKey = { ...key, buildKey: '' };
    await cachedBaselineProfile({ dataDir, key: noKey, schema, compute });
    expect((await cachedBaselineProfile({ dataDir, key: noKey, schema, compute })).cached).toBe(
      false,
    );
    expect(await readdir(path.join(dataDir, 'baseline-profiles'))).toHaveLength(3);
  });

  it('a second judging on the host reuses the baseline memory profile and cachegrind counts', async () => {
    // A private data folder: the first judging cannot find anything cached.
    const dataDir = path.join(dir, 'judge');
    const patchText = await makePatch({
      'wordcount.cpp': await solutionSource(`
std::vector<WordCount> wordcount(std::string filePath) {
  std::unordered_map<std::string, int> m;
  m.reserve(1 << 12);
  std::ifstream is{filePath};
  std::string s;
  while (is >> s) ++m[s];
  std::vector<WordCount> out;
  out.reserve(m.size());
  for (auto &kv : m) out.push_back(WordCount{kv.second, kv.first});
  std::sort(out.begin(), out.end(), std::greater<WordCount>());
  return out;
}
`),
    });
    const challenge = await wordcountChallenge();
    const judgeOnce = async () => {
      const logs: string[] = [];
      const result = await judge({
        challenge,
        target: 'linux-intel',
        patchText,
        sandbox: createSandbox('bubblewrap'),
        dataDir,
        benchmark: { seed: 'test-profile-cache', sizeBytes: 1 << 20, rareSeparators: false },
        benchmarkSeedIsSecret: false,
        publicInput: { seed: 'test-public', sizeBytes: 256 << 10, rareSeparators: false },
        runPolicy: { warmups: 1, minPairs: 3, maxPairs: 3 },
        devMode: true,
        onLog: (line) => logs.push(line),
      });
      expect(result.verdict, result.message).toBe('ACCEPTED');
      return { result, logs: logs.join('\n') };
    };
    const first = await judgeOnce();
    expect(first.logs).not.toMatch(/reused from an earlier judging/);
    const second = await judgeOnce();
    expect(second.logs).toMatch(/baseline memory profile: reused from an earlier judging/);
    const memory = (r: typeof first) => r.result.stages.profile?.memory;
    expect(memory(first)?.baseline).toBeDefined();
    expect(memory(second)?.baseline).toEqual(memory(first)?.baseline);
    const deterministic = (r: typeof first) => r.result.stages.profile?.deterministic;
    if (deterministic(first)) {
      expect(second.logs).toMatch(/baseline cachegrind counts: reused from an earlier judging/);
      expect(deterministic(second)?.baseline).toEqual(deterministic(first)?.baseline);
    } else {
      // No valgrind on this machine: the note says why, and nothing was cached for it.
      expect(first.result.stages.profile?.notes.join('\n')).toMatch(/deterministic|cachegrind/);
    }
  }, 600_000);
});
