// A program that fails, or runs past the time limit, only under the profiler still gets its verdict
// from the timed runs: the profile stage loses that part and says why, nothing more. The solutions
// below tell the profiled run from the timed ones by the path they run at (the profiled run's
// program is at /judge/profiled-<random>/program, docs/profiles.md), which is how a real program's
// behaviour could differ there.
import { beforeAll, describe, expect, it } from 'vitest';
import type { JudgingResult } from '../../contracts';
import { judgeForTest, makePatch, solutionSource } from '../helpers/judging';

/** The baseline's algorithm, preceded by `whenProfiled` when the program runs under the profiler. */
const solution = (whenProfiled: string) => `
#include <cstdlib>
#include <cstring>
#include <unistd.h>

static bool underProfiler() {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return false;
  exe[n] = '\\0';
  return std::strstr(exe, "/profiled-") != nullptr;
}

std::vector<WordCount> wordcount(std::string filePath) {
  if (underProfiler()) {
    ${whenProfiled}
  }
  std::unordered_map<std::string, int> m;
  std::vector<WordCount> mvec;
  std::ifstream inFile{filePath, std::ios::binary};
  std::string s;
  while (inFile >> s)
    m[s]++;
  for (auto &p : m)
    mvec.emplace_back(WordCount{p.second, std::move(p.first)});
  std::sort(mvec.begin(), mvec.end(), std::greater<WordCount>());
  return mvec;
}
`;

// Long enough for the timed runs of 2 MiB on a loaded test machine, short for the test.
const RUN_SECONDS = 15;
let crashes: JudgingResult;
let sleeps: JudgingResult;

beforeAll(async () => {
  const judgeWith = async (whenProfiled: string) =>
    judgeForTest(
      await makePatch({ 'wordcount.cpp': await solutionSource(solution(whenProfiled)) }),
      { publicBytes: null, limits: { benchmarkRunSeconds: RUN_SECONDS } },
    );
  crashes = await judgeWith('std::abort();');
  sleeps = await judgeWith('for (;;) sleep(1);');
}, 900_000);

describe('a program that fails only under the profiler', () => {
  it('is accepted from its timed runs, and the profile says which part failed and why', () => {
    for (const [result, why] of [
      [crashes, /killed by SIGABRT/],
      [sleeps, /time limit/],
    ] as const) {
      expect(result.verdict, result.message).toBe('ACCEPTED');
      expect(result.stages.measure!.estimate!.speedup).toBeGreaterThan(0);
      const profile = result.stages.profile!;
      expect(profile.sampled).toBeNull();
      const note = profile.notes.find((n) => n.startsWith('sampled profile failed (solution)'));
      expect(note, profile.notes.join('\n')).toMatch(why);
    }
  });
});
