// A measure session judged by the real processes: a `perfjudge runner` (linux-intel, --dev-mode,
// small inputs, its own host lock), a `perfjudge scorer`, PostgreSQL and Redis. Two submissions
// queued together share one session; one of them fails its output check in the middle of it and
// leaves while the other goes on; a third arrives while the session is timing and joins it at a
// later round. Each keeps its own verdict and interval; the shared baseline runs are said.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobId,
  judgingResultSchema,
  progressEventSchema,
  type Manifest,
} from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import { upsertChallengeVersion } from '../../lib/server/db/contest/upsert-challenge-version';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { CliProcesses, stopProcess } from '../helpers/cli-processes';
import { deleteKeys } from '../helpers/queue';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser } from '../../dev/db-fixtures';
import { sweepStaleScratch } from '../../runner/service/work-root';

const FAST = readFileSync(
  path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
  'utf8',
);
const REDIS_URL = env().REDIS_URL;
const PREFIX = `test-session-${randomBytes(4).toString('hex')}`;
/**
 * Every entrant's timed pairs. A judging that arrives while the session times builds and tests
 * between two of its rounds (runner/judge/host-turns.ts: its untimed turns queue before the next
 * round), then joins the round after: the late one joins a few rounds in, however long its build
 * takes, so the session need only outlast the test's poll and the runner taking the job. 40 pairs
 * on 8 MiB were 35 CPU seconds of timed runs; 24 on 5 MiB about a third of that.
 */
const PAIRS = 24;
const BENCHMARK_BYTES = 5 << 20;

/**
 * The baseline's algorithm, but on an input over 4.5 MiB (the 5 MiB benchmark; no test input is
 * that large: the largest edge case, long-words-sharing-prefix, is 4 MiB and 3 bytes, the public
 * input 256 KiB) it drops its last line in about 3 runs of 5: the stack's random address (ASLR)
 * decides, so it passes the test stage and fails one of its timed runs, most often after some
 * correct ones.
 */
const FLAKY_SOLUTION = `#include "wordcount.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <unordered_map>
#include <utility>
#include <vector>

std::vector<WordCount> wordcount(std::string filePath) {
  std::unordered_map<std::string, int> m;
  std::ifstream in{filePath, std::ios::binary};
  std::string s;
  while (in >> s) m[s]++;
  std::vector<WordCount> out;
  for (auto &p : m) out.emplace_back(WordCount{p.second, std::move(p.first)});
  std::sort(out.begin(), out.end(), std::greater<WordCount>());
  struct stat st {};
  auto at = reinterpret_cast<std::uintptr_t>(&st);
  if (stat(filePath.c_str(), &st) == 0 && st.st_size > (9 << 19) && (at >> 12) % 5 < 3)
    out.pop_back();
  return out;
}
`;

/** A patch that makes wordcount.cpp exactly FLAKY_SOLUTION, whatever the template holds. */
async function flakyPatch(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-flaky-'));
  try {
    await cp(path.join(REPO_ROOT, 'challenges/wordcount/template'), path.join(dir, 'a'), {
      recursive: true,
    });
    await cp(path.join(dir, 'a'), path.join(dir, 'b'), { recursive: true });
    await writeFile(path.join(dir, 'b/wordcount.cpp'), FLAKY_SOLUTION);
    const diff = await promisify(execFile)(
      'git',
      ['diff', '--no-index', '--no-prefix', 'a/wordcount.cpp', 'b/wordcount.cpp'],
      { cwd: dir },
    ).catch((error: { stdout: string }) => error);
    // The folders a/ and b/ stand for git's own prefixes.
    return diff.stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

let database: TestDatabase;
let redis: Redis;
let queues: QueueSet;
let lockDir: string;
const processes = new CliProcesses({ redisUrl: REDIS_URL, prefix: PREFIX });

beforeAll(async () => {
  database = await createTestDatabase();
  const { manifest } = await loadChallenge('wordcount');
  await upsertChallengeVersion(database.db, {
    ...manifest,
    targets: { 'linux-intel': manifest.targets['linux-intel'] },
  } as Manifest);
  // The benchmark the flaky solution fails on, and a precision no judging reaches: every entrant
  // runs its PAIRS pairs, so the session is still timing when the late one arrives.
  await database.db.challenge.update({
    where: { slug: 'wordcount' },
    data: { benchmarkBytes: BENCHMARK_BYTES, precision: 0.0001 },
  });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  queues = createQueueSet({ connection: redis, prefix: PREFIX });
  lockDir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-session-lock-'));
  // The sandbox's user reaches the work root inside it.
  await chmod(lockDir, 0o755);
});

afterAll(async () => {
  processes.killAll();
  await queues?.close();
  if (redis) {
    await deleteKeys(redis, `${PREFIX}:*`);
    await redis.quit();
  }
  await database?.drop();
  if (lockDir) {
    // A judging cut short leaves its scratch folder (a tmpfs mounted on it, as root).
    await sweepStaleScratch(path.join(lockDir, 'work'));
    await rm(lockDir, { recursive: true, force: true });
  }
});

async function submit(userId: string, patchText: string) {
  const submitted = await submitPatch({
    db: database.db,
    queues,
    userId,
    challengeSlug: 'wordcount',
    patchText,
  });
  if (!submitted.ok) throw new Error(submitted.message);
  return submitted;
}

/**
 * Resolves once the judging's job reports a timed pair (its session has timed a round). Not the
 * measure stage's start: the stage prepares (the input, the expected output) before its first
 * round, and a judging arriving meanwhile builds first and joins that very round.
 */
async function untilTiming(judgingId: string, logs: () => string): Promise<void> {
  const queue = queues.judgeQueue('linux-intel');
  const deadline = Date.now() + 240_000;
  for (;;) {
    const job = await queue.getJob(judgingJobId(judgingId, 0));
    const progress = progressEventSchema.safeParse(job?.progress);
    if (
      progress.success &&
      progress.data.stage === 'measure' &&
      /^pair \d+/.test(progress.data.message)
    )
      return;
    if (Date.now() > deadline) throw new Error(`never timed\n${logs()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function settled(submissionId: string, logs: () => string) {
  // A quiet CI host settles the session in about 3 minutes; a host at load 15 took over 5.
  const deadline = Date.now() + 540_000;
  for (;;) {
    const s = await database.db.submission.findUniqueOrThrow({
      where: { id: submissionId },
      select: { status: true, verdict: true, judgings: { select: { result: true } } },
    });
    if (s.status === 'DONE' || s.status === 'FAILED') {
      const result = judgingResultSchema.parse(s.judgings[0]?.result);
      return { verdict: s.verdict, result };
    }
    if (Date.now() > deadline) throw new Error(`not judged in time\n${logs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

it('queued judgings share a session; one fails mid-session, one joins late', async () => {
  const runner = processes.start(
    [
      'runner',
      '--target',
      'linux-intel',
      '--dev-mode',
      // No start-up host report (runner-host-report.test.ts tests it): nothing here reads it.
      '--no-host-report',
      '--public-size',
      '256KiB',
      '--runs',
      String(PAIRS),
      '--no-deterministic',
      '--host-lock',
      path.join(lockDir, 'judging.lock'),
      // Its own work root: with a private host lock, another runner on this host (another test)
      // would sweep the shared default's judging folders as a dead runner's.
      '--work-root',
      path.join(lockDir, 'work'),
    ],
    {},
    new RegExp(`serving ${judgeQueueName('linux-intel')}`),
  );
  const scorer = processes.start(
    ['scorer', '--reconcile-every', '0'],
    { DATABASE_URL: database.url },
    /scorer ready/,
  );
  await Promise.all([runner.isReady, scorer.isReady]);
  const logs = () => processes.logs(4000);

  const [alice, bob, carol] = await Promise.all([1, 2, 3].map(() => makeUser(database.db)));
  const first = await submit(alice!, FAST);
  const flaky = await submit(bob!, await flakyPatch());
  await untilTiming(first.judgings[0]!.judgingId, logs);
  const late = await submit(carol!, FAST);

  const a = await settled(first.submissionId, logs);
  const w = await settled(flaky.submissionId, logs);
  const l = await settled(late.submissionId, logs);
  expect(a.verdict, logs()).toBe('ACCEPTED');
  expect(l.verdict, logs()).toBe('ACCEPTED');
  expect(w.verdict, w.result.message).toBe('WRONG_ANSWER');
  // Wrong on the benchmark input, in the measure stage: every test passed.
  const failedCases = w.result.stages.test?.cases.filter((c) => c.outcome !== 'passed') ?? [];
  expect(failedCases.map((c) => `${c.group}/${c.name}: ${c.message}`)).toEqual([]);

  const session = (r: Awaited<ReturnType<typeof settled>>) => r.result.stages.measure!.session!;
  // One session: the same id, and baseline runs shared.
  const sessions = () =>
    JSON.stringify({ a: session(a), w: session(w), l: session(l) }) + `\n${logs()}`;
  // How far in the late one joined and how long each stayed: the margin PAIRS leaves.
  console.log(`sessions: ${JSON.stringify({ a: session(a), w: session(w), l: session(l) })}`);
  expect(session(w).id, sessions()).toBe(session(a).id);
  expect(session(l).id, sessions()).toBe(session(a).id);
  expect(session(a).entrants).toBeGreaterThanOrEqual(2);
  expect(session(a).sharedBaselineRuns).toBeGreaterThan(0);
  expect(session(l).sharedBaselineRuns).toBeGreaterThan(0);
  // It joined a running session: the first one had timed rounds before it came. Which of the two
  // leaves last (and so times rounds alone) depends on how many disturbed pairs each re-timed.
  expect(session(a).joinedAtRound, sessions()).toBe(0);
  expect(session(l).joinedAtRound, sessions()).toBeGreaterThan(0);
  expect(session(l).sharedBaselineRuns, sessions()).toBeLessThanOrEqual(session(l).rounds);
  expect(session(a).hostMs).toBeLessThan(session(a).aloneHostMs);
  // The one that failed left early; the others each timed at least their own pairs.
  expect(session(w).rounds).toBeLessThan(PAIRS);
  expect(session(a).rounds).toBeGreaterThanOrEqual(PAIRS);
  expect(session(l).rounds).toBeGreaterThanOrEqual(PAIRS);
  // Each its own interval, around a speedup of the same patch, on its budget (the clean pairs, or
  // all of them where a busy host made it fall back to CPU time).
  for (const r of [a, l]) {
    const e = r.result.stages.measure!.estimate!;
    // A CPU-time estimate counts every pair it timed, those discarded as disturbed before the
    // fall-back too: then more than PAIRS (26 of 24 seen at load 12), never more than its rounds.
    const budget = e.basis === 'cpu-time' ? session(r).rounds : PAIRS;
    expect(e.pairs, logs()).toBeLessThanOrEqual(budget);
    expect(e.stopReason).toBe('budget');
    expect(e.ciLow).toBeLessThanOrEqual(e.speedup);
    expect(e.ciHigh).toBeGreaterThanOrEqual(e.speedup);
  }

  expect(await stopProcess(runner.child)).toBe(0);
  expect(await stopProcess(scorer.child)).toBe(0);
}, 900_000);
