// Build flags are symmetric across targets: both build Release with NDEBUG (as the 2022 contest
// did), so an `assert(false)` in a solution is compiled out on linux-intel and on windows-amd
// (emulated: MinGW-w64 + Wine) alike and the verdicts agree. Without NDEBUG on one target the same
// patch aborts there, which is what this test would catch.
import { describe, expect, it } from 'vitest';
import { definedMacros } from '../../contracts';
import { makePatch, solutionSource } from '../../lib/core/challenge/solution-tree';
import { judgeForTest, wordcountChallenge } from '../helpers/judging';
import { judge } from '../../runner/judge/judge';
import { createSandbox } from '../../runner/sandbox';
import { TEST_DATA_DIR } from '../helpers/judging';

/**
 * Past the assertion, the solution ends with an exit code of its own on its first test: a verdict
 * reached with one run per target (an ACCEPTED would run every edge case and time it, under Wine
 * too). An assertion left in aborts first: SIGABRT on Linux, exit code 3 on Windows.
 */
const EXIT_CODE = 7;

// An assertion that always fails, as three 2022 solutions had asserts, then the baseline's code.
const ASSERTING = `
#include <cassert>
#include <cstdlib>
std::vector<WordCount> wordcount(std::string filePath) {
  assert(false && "a debug check a Release build compiles out");
  std::exit(${EXIT_CODE});
  std::unordered_map<std::string, int> m;
  std::vector<WordCount> mvec;
  std::ifstream inFile{filePath, std::ios::binary};
  std::string s;
  while (inFile >> s) m[s]++;
  for (auto &p : m) mvec.emplace_back(WordCount{p.second, p.first});
  std::sort(mvec.begin(), mvec.end(), std::greater<WordCount>());
  return mvec;
}
`;

describe('assert(false) in a solution', () => {
  it('both targets define the same macros, NDEBUG among them', async () => {
    const { manifest } = await wordcountChallenge();
    const linux = definedMacros(manifest.targets['linux-intel']!.toolchain);
    expect(linux).toContain('NDEBUG');
    expect(definedMacros(manifest.targets['windows-amd']!.toolchain)).toEqual(linux);
  });

  it('gets the same verdict on linux-intel and windows-amd: compiled out, the run goes past it', async () => {
    const patch = await makePatch({ 'wordcount.cpp': await solutionSource(ASSERTING) });
    const small = {
      benchmarkBytes: 256 << 10,
      publicBytes: null,
      runPolicy: { minPairs: 3, maxPairs: 3 },
      // The verdicts are the point: no profile stage (on linux-intel its cachegrind rebuild).
      profile: false,
    };
    const linux = await judgeForTest(patch, { ...small, target: 'linux-intel' });
    const windows = await judgeForTest(patch, { ...small, target: 'windows-amd' });
    for (const result of [linux, windows]) {
      expect(result.verdict, result.message).toBe('RUNTIME_ERROR');
      expect(result.message).toMatch(new RegExp(`exit code ${EXIT_CODE}\\b`));
    }
  }, 400_000);

  it('would abort on a target built without NDEBUG (what the symmetry prevents)', async () => {
    const challenge = await wordcountChallenge();
    const linux = challenge.manifest.targets['linux-intel']!;
    // Bypasses the manifest schema on purpose: it refuses such asymmetric flags.
    const debugLinux = {
      ...challenge,
      manifest: {
        ...challenge.manifest,
        targets: {
          ...challenge.manifest.targets,
          'linux-intel': {
            ...linux,
            toolchain: {
              ...linux.toolchain,
              flags: linux.toolchain.flags.filter((f) => f !== '-DNDEBUG'),
            },
          },
        },
      },
    };
    const patch = await makePatch({ 'wordcount.cpp': await solutionSource(ASSERTING) });
    const result = await judge({
      challenge: debugLinux,
      target: 'linux-intel',
      patchText: patch,
      sandbox: createSandbox(),
      dataDir: TEST_DATA_DIR,
      benchmark: { seed: 'test-benchmark', sizeBytes: 256 << 10, rareSeparators: false },
      benchmarkSeedIsSecret: false,
      publicInput: null,
      runPolicy: { warmups: 1, minPairs: 3, maxPairs: 3 },
      devMode: true,
    });
    expect(result.verdict, result.message).toBe('RUNTIME_ERROR');
    expect(JSON.stringify(result.stages.test)).toMatch(/SIGABRT|Assertion/);
  }, 400_000);
});
