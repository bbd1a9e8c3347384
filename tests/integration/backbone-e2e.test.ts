// End to end with the real processes: a submission made through the library is judged by a real
// `perfjudge runner` (linux-intel, --dev-mode, tiny inputs; Redis only, no database credentials)
// and recorded by a real `perfjudge scorer`; its score appears in PostgreSQL. The challenge version
// registered here has linux-intel only: this machine cannot serve windows-amd, and a score needs
// every target of the version.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { judgingResultSchema, type Manifest } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import { upsertChallengeVersion } from '../../lib/server/db/contest/upsert-challenge-version';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { CliProcesses, stopProcess } from '../helpers/cli-processes';
import { deleteKeys } from '../helpers/queue';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { leaderboardEntries, makeUser } from '../../dev/db-fixtures';

const PATCH = readFileSync(
  path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
  'utf8',
);
const REDIS_URL = env().REDIS_URL;
/** This file's own key prefix, deleted afterwards (never FLUSHALL: other tests share the server). */
const PREFIX = `test-e2e-${randomBytes(4).toString('hex')}`;

let database: TestDatabase;
let redis: Redis;
let queues: QueueSet;
const processes = new CliProcesses({ redisUrl: REDIS_URL, prefix: PREFIX });

beforeAll(async () => {
  database = await createTestDatabase();
  const { manifest } = await loadChallenge('wordcount');
  await upsertChallengeVersion(database.db, {
    ...manifest,
    targets: { 'linux-intel': manifest.targets['linux-intel'] },
  } as Manifest);
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

it('a submission is judged by a runner process and scored by a scorer process', async () => {
  const { db } = database;
  const runner = processes.start(
    [
      'runner',
      '--target',
      'linux-intel',
      '--dev-mode',
      // No start-up host report (runner-host-report.test.ts tests it): nothing here reads it, and
      // its timed runs of the baseline took the host's turn beside this judging.
      '--no-host-report',
      '--public-size',
      '256KiB',
      '--runs',
      '3',
      '--no-deterministic',
    ],
    {},
    /serving judge-linux-intel/,
  );
  const scorer = processes.start(
    ['scorer', '--reconcile-every', '0'],
    { DATABASE_URL: database.url },
    /scorer ready/,
  );
  await Promise.all([runner.isReady, scorer.isReady]);

  const userId = await makeUser(db);
  const submitted = await submitPatch({
    db,
    queues,
    userId,
    challengeSlug: 'wordcount',
    patchText: PATCH,
  });
  if (!submitted.ok) throw new Error(submitted.message);
  expect(submitted.queued).toBe(true);

  const deadline = Date.now() + 240_000;
  let status = 'QUEUED';
  while (status !== 'DONE' && status !== 'FAILED') {
    if (Date.now() > deadline)
      throw new Error(
        `not judged in time\n--- runner\n${runner.output().slice(-3000)}\n--- scorer\n${scorer.output().slice(-3000)}`,
      );
    await new Promise((r) => setTimeout(r, 250));
    status = (
      await db.submission.findUniqueOrThrow({
        where: { id: submitted.submissionId },
        select: { status: true },
      })
    ).status;
  }

  const s = await db.submission.findUniqueOrThrow({
    where: { id: submitted.submissionId },
    select: {
      status: true,
      verdict: true,
      score: true,
      judgings: {
        select: { verdict: true, speedup: true, devMode: true, runner: true, result: true },
      },
    },
  });
  expect(s).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
  const [judging] = s.judgings;
  // One target: the combined score (the sum of speedups) is its speedup.
  expect(s.score).toBe(judging?.speedup);
  expect(s.score).toBeGreaterThan(0.5);
  // Labelled: this host does not match the target.
  expect(judging?.devMode).toBe(true);
  // The scorer saw the runner take the job.
  expect(judging?.runner).toBeTruthy();
  const result = judgingResultSchema.parse(judging?.result);
  expect(result.target).toBe('linux-intel');
  expect(
    (await db.run.count({ where: { judging: { submissionId: submitted.submissionId } } })) > 0,
  ).toBe(true);
  const board = await leaderboardEntries(db, 'wordcount');
  expect(board[0]).toMatchObject({ userId, submissionId: submitted.submissionId });

  // Both stop gracefully on SIGTERM.
  expect(await stopProcess(runner.child)).toBe(0);
  expect(await stopProcess(scorer.child)).toBe(0);
}, 300_000);
