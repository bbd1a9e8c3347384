// End to end with both targets: real `perfjudge runner` processes for linux-intel (dev mode) and
// windows-amd (emulated under Wine, automatically on this Linux host) and a real `perfjudge scorer`.
// A submission gets both targets' results and the combined score (the sum of speedups); a patch
// with POSIX-only calls is settled BUILD_ERROR for windows-amd by the Linux runner's portability
// pre-check, without a build on the Windows side. Inputs are tiny: this checks the plumbing and the
// labels, not the timings. The windows-amd acceptance is checked here in full (the runs under Wine,
// the MinGW build, the labels) rather than judged a second time in windows-judge.test.ts.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { judgingResultSchema, type JudgingResult, type Manifest } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import { upsertChallengeVersion } from '../../lib/server/db/contest/upsert-challenge-version';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { CliProcesses, stopProcess } from '../helpers/cli-processes';
import { deleteKeys } from '../helpers/queue';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser } from '../../dev/db-fixtures';

const patch = (name: string) =>
  readFileSync(
    path.join(REPO_ROOT, `challenges/wordcount/submissions/accepted/${name}.patch`),
    'utf8',
  );
const REDIS_URL = env().REDIS_URL;
/** This file's own key prefix, deleted afterwards (never FLUSHALL: other tests share the server). */
const PREFIX = `test-win-e2e-${randomBytes(4).toString('hex')}`;

let database: TestDatabase;
let redis: Redis;
let queues: QueueSet;
const processes = new CliProcesses({ redisUrl: REDIS_URL, prefix: PREFIX });

beforeAll(async () => {
  database = await createTestDatabase();
  const { manifest } = await loadChallenge('wordcount');
  // Both targets, as in the manifest.
  await upsertChallengeVersion(database.db, manifest as Manifest);
  // The contest's benchmark input, carried by every job (runners never choose their own): tiny.
  await database.db.challenge.update({
    where: { slug: 'wordcount' },
    data: { benchmarkBytes: 1 << 20 },
  });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  queues = createQueueSet({ connection: redis, prefix: PREFIX });
});

afterAll(async () => {
  processes.killAll();
  await queues?.close();
  if (redis) {
    await deleteKeys(redis, `${PREFIX}:*`);
    await redis.quit();
  }
  await database?.drop();
});

/** Small inputs, 3 pairs, no cachegrind, and no start-up host report (nothing here reads it). */
const DEV_KNOBS = [
  '--public-size',
  '256KiB',
  '--runs',
  '3',
  '--no-deterministic',
  '--no-host-report',
];

async function waitFor<T>(what: string, probe: () => Promise<T | null>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) {
      const logs = processes.logs();
      throw new Error(`${what}: not in time\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function submit(userId: string, patchText: string): Promise<string> {
  const submitted = await submitPatch({
    db: database.db,
    queues,
    userId,
    challengeSlug: 'wordcount',
    patchText,
  });
  if (!submitted.ok) throw new Error(submitted.message);
  expect(submitted.queued).toBe(true);
  return submitted.submissionId;
}

function judgingsOf(submissionId: string) {
  return database.db.judging.findMany({
    where: { submissionId },
    select: {
      verdict: true,
      speedup: true,
      devMode: true,
      emulated: true,
      result: true,
      target: { select: { name: true } },
    },
  });
}

/**
 * The windows-amd judging of a faster correct patch, as the Windows runner answered it: built with
 * MinGW, timed under Wine beside the template's baseline (each run's output checked), labelled
 * emulated throughout.
 */
function expectEmulatedAcceptance(result: JudgingResult): void {
  expect(result.verdict, result.message).toBe('ACCEPTED');
  expect(result.host).toMatchObject({ emulated: true, devMode: true });
  expect(result.host.os).toMatch(/Windows emulated by wine/);
  const measure = result.stages.measure!;
  const timed = measure.runs.filter((r) => r.kind === 'timed');
  expect(timed.length).toBe(6);
  expect(timed.filter((r) => r.side === 'baseline').length).toBe(3);
  for (const run of timed) {
    expect(run.correct).toBe(true);
    expect(run.stats.wallMs).toBeGreaterThan(0);
    expect(run.stats.maxRssBytes).toBeGreaterThan(1 << 20);
    // No PMU under Wine and no uProf: unsupported, never 0.
    expect(Object.values(run.counters).every((c) => c.status === 'unsupported')).toBe(true);
  }
  expect(measure.estimate!.speedup).toBeGreaterThan(1);
  expect(result.stages.build!.solution.log).toMatch(/x86_64-w64-mingw32-g\+\+-posix/);
  expect(result.warnings.join('\n')).toMatch(/emulated build: .*mapped from \/O2/);
}

it('both targets judge a submission (windows-amd emulated) and the scorer combines them; the pre-check settles a POSIX-only patch', async () => {
  const { db } = database;
  const linux = processes.start(
    ['runner', '--target', 'linux-intel', '--dev-mode', ...DEV_KNOBS],
    {},
    /serving judge-linux-intel/,
  );
  const scorer = processes.start(
    ['scorer', '--reconcile-every', '0'],
    { DATABASE_URL: database.url },
    /scorer ready/,
  );
  await Promise.all([linux.isReady, scorer.isReady]);
  const userId = await makeUser(db);

  // 1. POSIX-only patch, while no Windows runner is up: the Linux runner judges it and leaves the
  //    failed cross-compile in Redis; the Windows runner started afterwards settles from it.
  const posix = await submit(userId, patch('posix-mmap'));
  // The scorer records a submission's judgings once every target answered: wait for the runner.
  await waitFor(
    'the linux-intel judging of posix-mmap',
    () => Promise.resolve(/ACCEPTED in [\d.]+ s/.test(linux.output()) ? true : null),
    180_000,
  );
  expect(linux.output()).toMatch(/portability pre-check for windows-amd: does not build/);
  // No flag: windows-amd must be emulated (and so labelled dev mode) on its own on this host.
  const windows = processes.start(
    ['runner', '--target', 'windows-amd', ...DEV_KNOBS],
    {},
    /serving judge-windows-amd/,
  );
  await windows.isReady;
  expect(windows.output()).toMatch(/emulated: windows-amd/);
  await waitFor(
    'posix-mmap scored',
    async () => {
      const s = await db.submission.findUniqueOrThrow({
        where: { id: posix },
        select: { status: true },
      });
      return s.status === 'DONE' || s.status === 'FAILED' ? s : null;
    },
    120_000,
  );
  const posixJudgings = await judgingsOf(posix);
  const byTarget = (js: typeof posixJudgings, t: string) => js.find((j) => j.target.name === t)!;
  expect(byTarget(posixJudgings, 'linux-intel').verdict).toBe('ACCEPTED');
  const posixWindows = byTarget(posixJudgings, 'windows-amd');
  expect(posixWindows.verdict).toBe('BUILD_ERROR');
  const posixResult = judgingResultSchema.parse(posixWindows.result);
  expect(posixResult.message).toMatch(/sys\/mman\.h/);
  expect(posixResult.warnings.join('\n')).toMatch(/settled by the portability pre-check/);
  expect(posixResult.durationMs).toBeLessThan(5_000);

  // 2. A portable, faster patch: both targets accept it and the score is the sum of the speedups.
  const fast = await submit(userId, patch('fast-hash-table'));
  await waitFor(
    'fast-hash-table scored',
    async () => {
      const s = await db.submission.findUniqueOrThrow({
        where: { id: fast },
        select: { status: true },
      });
      return s.status === 'DONE' || s.status === 'FAILED' ? s : null;
    },
    300_000,
  );
  const s = await db.submission.findUniqueOrThrow({
    where: { id: fast },
    select: { verdict: true, score: true },
  });
  const js = await judgingsOf(fast);
  const lin = byTarget(js, 'linux-intel');
  const win = byTarget(js, 'windows-amd');
  expect(lin.verdict).toBe('ACCEPTED');
  expect(win.verdict).toBe('ACCEPTED');
  expect(s.verdict).toBe('ACCEPTED');
  expect(s.score).toBeCloseTo((lin.speedup ?? NaN) + (win.speedup ?? NaN), 6);
  // Labelled in the data the web app reads: the row and the result's host.
  expect(win).toMatchObject({ emulated: true, devMode: true });
  expect(lin.emulated).toBe(false);
  const winResult = judgingResultSchema.parse(win.result);
  expectEmulatedAcceptance(winResult);

  expect(await stopProcess(windows.child)).toBe(0);
  expect(await stopProcess(linux.child)).toBe(0);
  expect(await stopProcess(scorer.child)).toBe(0);
}, 600_000);
