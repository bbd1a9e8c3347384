// A final session for real (runner/final/final-session.ts): three entrants built in the sandbox
// with the real compiler and timed in rotated rounds on a small input; a wrong output excludes
// its entrant with the reason; a session resumed from a checkpoint times only the missing rounds;
// the builds run side by side (two at a time here), all of them before any timed run.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASELINE_ENTRANT,
  finalSessionResultSchema,
  type FinalRound,
  type FinalSessionProgress,
  type FinalSessionResult,
} from '../../contracts/final';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { cpuVendor } from '../../runner/host/fingerprint';
import { runFinalSession, type FinalSessionOptions } from '../../runner/final/final-session';
import { roundOrder } from '../../runner/final/schedule';
import { createSandbox } from '../../runner/sandbox';
import { createTargetPlatform } from '../../runner/platform';
import { makePatch, solutionSource, TEST_DATA_DIR, wordcountChallenge } from '../helpers/judging';

const SUBMISSIONS = path.join(REPO_ROOT, 'challenges', 'wordcount', 'submissions');

// The baseline with its least frequent word dropped: builds and runs, prints a wrong output.
const WRONG_SOLUTION = `
std::vector<WordCount> wordcount(std::string filePath) {
  std::unordered_map<std::string, int> m;
  std::vector<WordCount> mvec;
  std::ifstream inFile{filePath, std::ios::binary};
  std::string s;
  while (inFile >> s)
    m[s]++;
  for (auto &p : m)
    mvec.emplace_back(WordCount{p.second, p.first});
  std::sort(mvec.begin(), mvec.end(), std::greater<WordCount>());
  if (!mvec.empty()) mvec.pop_back();
  return mvec;
}
`;

const ROUNDS = [0, 1, 2, 3, 4];
const sandbox = createSandbox('bubblewrap');
let challenge: Challenge;
let dir: string;
let base: Omit<FinalSessionOptions, 'done' | 'onRound' | 'onProgress'>;
let first: FinalSessionResult;
const firstRounds: FinalRound[] = [];
const firstProgress: FinalSessionProgress[] = [];
const firstLog: string[] = [];

beforeAll(async () => {
  challenge = await wordcountChallenge();
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-final-test-'));
  // The sandbox's user works in folders under it.
  await chmod(dir, 0o755);
  const target = challenge.manifest.targets['linux-intel']!;
  base = {
    challenge,
    target: 'linux-intel',
    platform: await createTargetPlatform({ target, sandbox, dataDir: TEST_DATA_DIR }),
    sandbox,
    dataDir: TEST_DATA_DIR,
    workRoot: dir,
    benchmark: { seed: 'test-final-session', sizeBytes: 1 << 20, rareSeparators: false },
    entrants: [
      {
        id: 'copy',
        patchText: await readFile(path.join(SUBMISSIONS, 'accepted/baseline-copy.patch'), 'utf8'),
      },
      {
        id: 'fast',
        patchText: await readFile(path.join(SUBMISSIONS, 'accepted/fast-hash-table.patch'), 'utf8'),
      },
      {
        id: 'wrong',
        patchText: await makePatch({ 'wordcount.cpp': await solutionSource(WRONG_SOLUTION) }),
      },
    ],
    sessionId: 'session-test',
    part: 0,
    runnerId: 'runner-test',
    rounds: ROUNDS,
    // The machines tests run on are busy: after a few rounds started over, disturbed runs are
    // kept (as judgeForTest lets a busy host fall back to CPU time), so the test never depends on
    // the load.
    maxDiscardedRounds: 3,
    disturbance: { cpuTimeFallback: true },
    memoryBandwidth: 10e9,
    devMode: (await cpuVendor()) !== target.cpuVendor,
  };
  first = await runFinalSession({
    ...base,
    done: [],
    onRound: (round) => {
      firstRounds.push(round);
    },
    onProgress: (p) => firstProgress.push(p),
    onLog: (line) => firstLog.push(line),
    parallelBuilds: 2,
  });
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('runFinalSession', () => {
  it('times every round with the baseline and the entrants still in, in rotated orders', () => {
    expect(first.judgeError).toBeNull();
    expect(finalSessionResultSchema.parse(first)).toEqual(first);
    expect(first.rounds.map((r) => r.round)).toEqual(ROUNDS);
    for (const round of first.rounds) {
      expect(round.order).toEqual(roundOrder(round.round, ['copy', 'fast']));
      expect(round.runs.map((r) => r.entrant)).toEqual(round.order);
      expect(round.runs.every((r) => r.correct && r.failure === null && r.wallMs > 0)).toBe(true);
      expect(round.runs.every((r) => r.evidence !== null)).toBe(true);
      expect(round.hostFingerprintHash).toMatch(/^[0-9a-f]{64}$/);
    }
    // The rotation puts someone else first in consecutive rounds.
    expect(new Set(first.rounds.slice(0, 3).map((r) => r.order[0]))).toEqual(
      new Set([BASELINE_ENTRANT, 'copy', 'fast']),
    );
  });

  it('builds side by side, at most two at a time, and times nothing before the last build ends', () => {
    const at = (pattern: RegExp) => firstLog.findIndex((line) => pattern.test(line));
    const started = ['copy', 'fast', 'wrong'].map((id) =>
      at(new RegExp(`^entrant ${id}: build started`)),
    );
    const built = ['copy', 'fast', 'wrong'].map((id) => at(new RegExp(`^entrant ${id} built in`)));
    expect([...started, ...built].every((i) => i >= 0)).toBe(true);
    // The first two overlap: both start before either ends (one at a time, the second would
    // start after the first's end).
    expect(Math.max(started[0]!, started[1]!)).toBeLessThan(Math.min(built[0]!, built[1]!));
    // The bound: the third starts only once one of the first two has ended.
    expect(started[2]).toBeGreaterThan(Math.min(built[0]!, built[1]!));
    // The timed work follows every build.
    const firstRoundProgress = firstProgress.findIndex((p) => p.stage === 'rounds');
    const lastBuildProgress = firstProgress.findLastIndex((p) => p.stage === 'build');
    expect(lastBuildProgress).toBeLessThan(firstRoundProgress);
  });

  it('excludes the wrong output with its reason and keeps the others', () => {
    expect(first.excluded).toEqual([
      { entrantId: 'wrong', reason: expect.stringMatching(/wrong output/) as string },
    ]);
    expect(first.rounds.flatMap((r) => r.runs.map((run) => run.entrant))).not.toContain('wrong');
    expect(Object.keys(first.plausibility).sort()).toEqual(['copy', 'fast']);
    expect(first.plausibility.fast?.inputBytes).toBe(first.inputBytes);
    expect(first.warnings.join('\n')).toMatch(/copy compiles to the same machine code/);
  });

  it('reports every round as it finishes, and records the wall times', () => {
    expect(firstRounds).toEqual(first.rounds);
    const withRound = firstProgress.filter((p) => p.round);
    expect(withRound.map((p) => [p.roundsDone, p.roundsPlanned])).toEqual(
      ROUNDS.map((r) => [r + 1, ROUNDS.length]),
    );
    expect(withRound.at(-1)!.etaMs).toBe(0);
    expect(firstProgress.at(-1)!.stage).toBe('done');
    // 3 warm-ups and 3 runs in every round at least.
    const runs = first.rounds.reduce((sum, r) => sum + r.runs.reduce((s, x) => s + x.wallMs, 0), 0);
    expect(first.runsWallMs).toBeGreaterThanOrEqual(runs);
    expect(first.timingMs).toBeGreaterThan(first.runsWallMs);
    expect(first.buildMs).toBeGreaterThan(0);
  });

  it('resumed from a checkpoint, times only the missing rounds', async () => {
    const timed: number[] = [];
    const resumed = await runFinalSession({
      ...base,
      // Only the two that matter: the checkpoint's entrants are all it times again.
      entrants: base.entrants.filter((e) => e.id !== 'wrong'),
      done: first.rounds.slice(0, 2),
      onRound: (round) => {
        timed.push(round.round);
      },
    });
    expect(resumed.judgeError).toBeNull();
    expect(timed).toEqual([2, 3, 4]);
    expect(resumed.rounds.map((r) => r.round)).toEqual(ROUNDS);
    expect(resumed.rounds.slice(0, 2)).toEqual(first.rounds.slice(0, 2));
    expect(resumed.rounds[2]!.order).toEqual(roundOrder(2, ['copy', 'fast']));
  }, 300_000);

  it('leaves an entrant the checkpoint excluded out of the rounds it still times', async () => {
    const failed: FinalRound = {
      ...first.rounds[0]!,
      runs: [
        ...first.rounds[0]!.runs,
        {
          entrant: 'fast',
          wallMs: 1,
          cpuMs: 1,
          correct: false,
          failure: 'exit code 3',
          evidence: null,
        },
      ],
    };
    const timed: FinalRound[] = [];
    const resumed = await runFinalSession({
      ...base,
      entrants: base.entrants.filter((e) => e.id !== 'wrong'),
      rounds: [0, 1],
      done: [failed],
      onRound: (round) => {
        timed.push(round);
      },
    });
    expect(resumed.excluded).toEqual([{ entrantId: 'fast', reason: 'round 1: exit code 3' }]);
    expect(timed.map((r) => r.order)).toEqual([roundOrder(1, ['copy'])]);
  }, 300_000);
});
