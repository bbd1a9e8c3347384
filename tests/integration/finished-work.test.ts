// Finished work is never re-done, with a real `perfjudge runner` (linux-intel), the real scorer and
// reconciler, PostgreSQL (own schema) and Redis (own prefix; the "loss" deletes every key of it,
// as FLUSHALL would, without touching other tests' keys):
// - the runner answers a judging, then Redis loses everything before any scorer recorded it; the
//   reconciler queues the judging again and the runner answers from its outbox, not judging twice;
// - that answer (BUILD_ERROR) cancels the other target's judging, whose job nobody has taken: it is
//   removed from the queue at once, not left for a runner to take and refuse.
// No windows-amd runner exists here: its job must never be taken.
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgingJobId } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { startScorer, type Scorer } from '../../scorer/scorer';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser, registerChallenge } from '../../dev/db-fixtures';
import {
  createTestQueues,
  deleteKeys,
  smallJudgingArgs,
  spawnRunner,
  testRedisUrl,
  type RunnerProcess,
  type TestQueues,
} from '../helpers/queue';

const BUILD_ERROR = readFileSync(
  path.join(REPO_ROOT, 'challenges/wordcount/submissions/build_error/syntax-error.patch'),
  'utf8',
);

let database: TestDatabase;
let testQueues: TestQueues;
let queues: QueueSet;
let runner: RunnerProcess;
let scorer: Scorer | undefined;
let tmp: string;
const connections: Redis[] = [];
const scorerLog: string[] = [];

function connect(): Redis {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  connections.push(redis);
  return redis;
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${runner.output()}\n${scorerLog.join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  await registerChallenge(database.db);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-finished-'));
  await chmod(tmp, 0o755);
  testQueues = await createTestQueues('finished');
  queues = createQueueSet({ connection: connect(), prefix: testQueues.prefix });
  runner = spawnRunner({
    prefix: testQueues.prefix,
    id: 'runner-outbox',
    args: smallJudgingArgs(tmp),
  });
  await runner.waitFor(/serving /, 120_000);
});

afterAll(async () => {
  runner?.stop('SIGKILL');
  await scorer?.close();
  await queues?.close();
  await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
  await testQueues?.cleanup();
  if (tmp) await rm(tmp, { recursive: true, force: true });
  await database?.drop();
});

describe('finished work after a fault', () => {
  it('a Redis loss between a target’s answer and its score job does not judge it again', async () => {
    const { db } = database;
    const submitted = await submitPatch({
      db,
      queues,
      userId: await makeUser(db),
      challengeSlug: 'wordcount',
      patchText: BUILD_ERROR,
    });
    if (!submitted.ok) throw new Error(submitted.message);
    const judgings = await db.judging.findMany({
      where: { submissionId: submitted.submissionId },
      select: { id: true, round: true, target: { select: { name: true } } },
    });
    const linux = judgings.find((j) => j.target.name === 'linux-intel')!;
    const windows = judgings.find((j) => j.target.name === 'windows-amd')!;
    const linuxJob = judgingJobId(linux.id, linux.round);

    // The runner answers; no scorer runs yet, so the answer is only in Redis.
    await until('the linux-intel answer', async () => {
      const job = await queues.judgeQueue('linux-intel').getJob(linuxJob);
      return (await job?.getState()) === 'completed';
    });
    expect(runner.output()).toMatch(new RegExp(`job ${linuxJob}: BUILD_ERROR in`));

    // Redis loses everything (this test's keys); then a scorer and its reconciler start.
    await deleteKeys(testQueues.redis, `${testQueues.prefix}:*`);
    scorer = startScorer({
      db,
      queues,
      connect,
      reconcileEveryMs: 500,
      reconcileOlderThanMs: 0,
      trackClaims: true,
      log: (line) => scorerLog.push(line),
    });
    const submission = await until('the submission to settle', async () => {
      const s = await db.submission.findUniqueOrThrow({ where: { id: submitted.submissionId } });
      return s.status === 'DONE' && s;
    });
    expect(submission.verdict).toBe('BUILD_ERROR');

    // Answered again from the outbox: judged once in all.
    const output = runner.output();
    expect(output).toContain(`job ${linuxJob}: BUILD_ERROR, answered again from the outbox`);
    expect(output.match(new RegExp(`job ${linuxJob}: BUILD_ERROR in`, 'g'))).toHaveLength(1);

    // The other target's judging is cancelled and its job is gone from the queue at once.
    const cancelled = await db.judging.findUniqueOrThrow({ where: { id: windows.id } });
    expect(cancelled.status).toBe('CANCELLED');
    await until('the windows-amd job to leave the queue', async () => {
      const job = await queues
        .judgeQueue('windows-amd')
        .getJob(judgingJobId(windows.id, windows.round));
      return job === undefined;
    });
    expect(scorerLog.join('\n')).toContain(
      `judging ${windows.id} r${windows.round}: cancelled, its job removed from the queue`,
    );
  }, 240_000);
});
