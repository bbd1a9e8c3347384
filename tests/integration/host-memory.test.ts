// The host's memory conditions are part of the benchmark definition: a runner on a host that
// differs refuses to start, and a judging there is labelled development mode with the differences
// (the sysfs/procfs root is injected with recorded files of such a host).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { createSandbox } from '../../runner/sandbox';
import { RunnerConfigError, startRunnerService } from '../../runner/service';
import { readHostMemory } from '../../runner/host/memory';
import { judge } from '../../runner/judge/judge';
import {
  judgeForTest,
  makePatch,
  solutionSource,
  TEST_DATA_DIR,
  wordcountChallenge,
} from '../helpers/judging';

const host = (name: string) => path.join(REPO_ROOT, 'tests/fixtures/host', name);
/** The baseline's counting with a hugetlb arena, as three 2022 solutions had; `checked` falls back. */
function hugetlbSolution(checked: boolean): string {
  return `
#include <sys/mman.h>
#include <cstring>
std::vector<WordCount> wordcount(std::string filePath) {
  size_t bytes = 8u << 20;
  void *arena = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
  ${
    checked
      ? `if (arena == MAP_FAILED) {
    arena = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(arena, bytes, MADV_HUGEPAGE);
  }`
      : '// MAP_FAILED is (void *)-1: the memset below faults on a host without a pool.'
  }
  std::memset(arena, 0, 4096);
  std::unordered_map<std::string, int> m;
  std::vector<WordCount> mvec;
  std::ifstream inFile{filePath, std::ios::binary};
  std::string s;
  while (inFile >> s) m[s]++;
  for (auto &p : m) mvec.emplace_back(WordCount{p.second, p.first});
  std::sort(mvec.begin(), mvec.end(), std::greater<WordCount>());
  munmap(arena, bytes);
  return mvec;
}
`;
}

const REJECTED_PATCH = '--- a/main.cpp\n+++ b/main.cpp\n@@ -1 +1 @@\n-x\n+y\n';

describe('host memory conditions', () => {
  it('a runner refuses a host whose THP mode and huge page pool differ, naming both fixes', async () => {
    const attempt = startRunnerService({
      target: 'linux-intel',
      redisUrl: 'redis://127.0.0.1:1',
      prefix: 'never-used',
      sandbox: createSandbox(),
      dataDir: TEST_DATA_DIR,
      hostRoot: host('busy-desktop'),
    });
    await expect(attempt).rejects.toThrow(RunnerConfigError);
    await expect(attempt).rejects.toThrow(
      /wordcount: transparent huge pages are "always", the benchmark definition says "madvise".*echo madvise.*wordcount: the 2 MiB huge page pool holds 512 pages \(1GiB\).*vm\.nr_hugepages=0.*--dev-mode/,
    );
  });

  it('a judging on such a host is labelled development mode with the differences', async () => {
    const challenge = await wordcountChallenge();
    const common = {
      challenge,
      target: 'linux-intel' as const,
      patchText: REJECTED_PATCH,
      sandbox: createSandbox(),
      dataDir: TEST_DATA_DIR,
      benchmark: { seed: 'test-benchmark', sizeBytes: 1 << 20, rareSeparators: false },
      benchmarkSeedIsSecret: false,
      publicInput: null,
      devMode: true,
    };
    const differing = await judge({ ...common, hostRoot: host('busy-desktop') });
    expect(differing.verdict).toBe('REJECTED');
    expect(differing.host.devMode).toBe(true);
    expect(differing.host.hostDifferences).toHaveLength(2);
    expect(differing.host.hostDifferences.join('\n')).toMatch(/"always".*\n.*512 pages/);
    expect(differing.warnings.join('\n')).toMatch(
      /development mode: this host differs from the benchmark definition: transparent huge pages are "always"/,
    );
    const matching = await judge({ ...common, hostRoot: host('tuned-intel') });
    expect(matching.host.hostDifferences).toEqual([]);
    expect(matching.warnings.join('\n')).not.toMatch(/differs from the benchmark definition/);
  });

  it('tells a contestant whose MAP_HUGETLB mapping dies why: this host has no pool', async () => {
    // The judge host the manifest describes (no pool): what this test's machine must be too.
    expect((await readHostMemory()).hugePages?.total, 'this host reserves huge pages').toBe(0);
    const unchecked = await judgeForTest(
      await makePatch({ 'wordcount.cpp': await solutionSource(hugetlbSolution(false)) }),
      { publicBytes: null },
    );
    expect(unchecked.verdict, unchecked.message).toBe('RUNTIME_ERROR');
    expect(unchecked.message).toMatch(
      /SIGSEGV.*judge hosts reserve no huge page pool: such a mapping fails with ENOMEM/,
    );
    const fallback = await judgeForTest(
      await makePatch({ 'wordcount.cpp': await solutionSource(hugetlbSolution(true)) }),
      // The verdict and the intake's hint are the point: no profile stage.
      { publicBytes: null, benchmarkBytes: 512 << 10, profile: false },
    );
    expect(fallback.verdict, fallback.message).toBe('ACCEPTED');
    expect(fallback.warnings.join('\n')).toMatch(
      /maps huge pages \(MAP_HUGETLB\).*madvise\(MADV_HUGEPAGE\) works/,
    );
  }, 300_000);
});
