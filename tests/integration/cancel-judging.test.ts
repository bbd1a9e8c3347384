// Stopping what cannot count, with a real runner: a submission fails to build on windows-amd while
// a real `perfjudge runner` judges it on linux-intel; the scorer cancels the linux-intel judging,
// the runner stops it at once (it polls the cancel flag) and takes its next job. The windows-amd
// runner is a FAKE (a tiny worker answering BUILD_ERROR), so no Wine is needed.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobId,
  judgingJobResultSchema,
  judgingJobSchema,
  type JudgingJobResult,
} from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import type { Db } from '../../lib/server/db/client';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { startScorer, type Scorer } from '../../scorer/scorer';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';
import {
  createTestQueues,
  smallJudgingArgs,
  spawnRunner,
  testRedisUrl,
  type RunnerProcess,
  type TestQueues,
} from '../helpers/queue';

const PATCH = path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/baseline-copy.patch');

let database: TestDatabase;
let db: Db;
let testQueues: TestQueues;
let queues: QueueSet;
let scorer: Scorer;
let runner: RunnerProcess;
let windows: Worker;
let tmp: string;
const connections: Redis[] = [];
/** What the fake windows-amd runner answers for the next job. */
let windowsVerdict: 'BUILD_ERROR' | 'ACCEPTED' = 'BUILD_ERROR';

function connect(): Redis {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  connections.push(redis);
  return redis;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  ms: number,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${runner.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function judgingOn(submissionId: string, target: string) {
  return db.judging.findFirstOrThrow({
    where: { submissionId, target: { name: target } },
    select: { id: true, round: true, status: true, message: true, verdict: true },
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await registerChallenge(db);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-cancel-'));
  await chmod(tmp, 0o755);
  testQueues = await createTestQueues('cancel');
  queues = createQueueSet({ connection: connect(), prefix: testQueues.prefix });
  scorer = startScorer({ db, queues, connect, reconcileEveryMs: null, trackClaims: true });
  await scorer.ready();
  // FAKE windows-amd runner: answers once the linux-intel judging is really running.
  windows = new Worker(
    judgeQueueName('windows-amd'),
    async (job: Job): Promise<JudgingJobResult> => {
      const data = judgingJobSchema.parse(job.data);
      if (windowsVerdict === 'BUILD_ERROR')
        await until(
          'the linux-intel judging to run',
          async () => (await judgingOn(data.submissionId, 'linux-intel')).status === 'JUDGING',
          120_000,
        );
      return judgingJobResultSchema.parse({
        judgingId: data.judgingId,
        round: data.round,
        runnerId: 'fake-windows-amd',
        result: makeResult({
          slug: data.challenge.slug,
          version: data.challenge.version,
          target: 'windows-amd',
          judgingId: data.judgingId,
          verdict: windowsVerdict,
        }),
      });
    },
    { connection: connect(), prefix: testQueues.prefix, lockDuration: 180_000 },
  );
  windows.on('error', () => {});
  runner = spawnRunner({
    prefix: testQueues.prefix,
    id: 'cancel-linux',
    args: smallJudgingArgs(tmp),
  });
  await runner.waitFor(/serving judge-linux-intel/, 120_000);
}, 180_000);

afterAll(async () => {
  runner?.stop('SIGKILL');
  await windows?.close();
  await scorer?.close();
  await queues?.close();
  for (const c of connections) c.disconnect();
  await testQueues?.cleanup();
  await database?.drop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('cancellation after a contestant fault', () => {
  it('a BUILD_ERROR on windows-amd stops the running linux-intel judging at once; the runner moves on', async () => {
    const userId = await makeUser(db);
    const patchText = await readFile(PATCH, 'utf8');
    const submit = async () => {
      const result = await submitPatch({
        db,
        queues,
        userId,
        challengeSlug: 'wordcount',
        patchText,
      });
      if (!result.ok) throw new Error(result.message);
      return result.submissionId;
    };
    const id = await submit();
    const settled = await until(
      'the submission to settle',
      async () => {
        const s = await db.submission.findUniqueOrThrow({ where: { id } });
        return s.status === 'DONE' ? s : null;
      },
      180_000,
    );
    const cancelledAt = Date.now();
    expect(settled).toMatchObject({ verdict: 'BUILD_ERROR', score: null });
    const linux = await judgingOn(id, 'linux-intel');
    expect(linux).toMatchObject({
      status: 'CANCELLED',
      verdict: null,
      message: 'not judged: the submission failed on windows-amd',
    });
    // The runner stops it within a few seconds (it looks for the flag every second).
    await runner.waitFor(/stopped, not judged: the submission failed on windows-amd/, 15_000);
    expect(Date.now() - cancelledAt).toBeLessThan(15_000);
    const job = await until(
      'the linux-intel job to fail',
      async () => {
        const read = () =>
          queues.judgeQueue('linux-intel').getJob(judgingJobId(linux.id, linux.round));
        const j = await read();
        // Read again once failed: the first read may predate the failure (attemptsMade 0).
        return j && (await j.getState()) === 'failed' ? read() : null;
      },
      5_000,
    );
    // Not retried: one attempt at most (none when it was stopped while still waiting for the
    // host lock, which a busy host can make it do).
    expect(job.attemptsMade).toBeLessThanOrEqual(1);
    expect(job.failedReason).toMatch(/not judged/);
    // Still CANCELLED: the failed job's parent ran and changed nothing.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await judgingOn(id, 'linux-intel')).status).toBe('CANCELLED');

    // The runner takes its next job and judges it to the end.
    windowsVerdict = 'ACCEPTED';
    const next = await submit();
    const done = await until(
      'the next submission',
      async () => {
        const s = await db.submission.findUniqueOrThrow({ where: { id: next } });
        return s.status === 'DONE' ? s : null;
      },
      240_000,
    );
    expect(done.verdict).toBe('ACCEPTED');
    expect((await judgingOn(next, 'linux-intel')).status).toBe('DONE');
  }, 480_000);
});
