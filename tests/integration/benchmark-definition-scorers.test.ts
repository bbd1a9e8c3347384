// The fault drill's case: a second scorer started by hand with another environment (the manifest's
// 256 MiB, another seed) re-queues the judgings Redis lost. Every job it makes must carry the
// contest's definition from the DATABASE (1 MiB, the contest's seed, its pair budget), and a correct
// submission judged on it is ACCEPTED and ranked, never JUDGE_ERROR "timed on another benchmark
// input". Real PostgreSQL (own schema), real Redis (own prefix), the real `perfjudge scorer`
// process; the runner is FAKE (a BullMQ worker answering as the real one does: a result timed on
// the job's definition), since what is under test is which definition the jobs carry.
import { randomBytes } from 'node:crypto';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobResultSchema,
  judgingJobSchema,
  TARGET_IDS,
  type JobBenchmark,
  type TargetId,
} from '../../contracts';
import { timedInput } from '../../lib/core/challenge/benchmark-definition';
import { env } from '../../lib/core/config/env';
import { defineBenchmarkOnce } from '../../lib/server/db/contest/contest-benchmark';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';
import { deleteKeys } from '../../dev/redis-keys';
import { CliProcesses, stopProcess } from '../helpers/cli-processes';

const PREFIX = `test-bdef-${randomBytes(4).toString('hex')}`;
const CONTEST_SEED = 'the-contest-seed-in-the-database';

let t: TestDatabase;
let redis: Redis;
let version: number;
const workers: Worker[] = [];
const processes = new CliProcesses({ redisUrl: env().REDIS_URL, prefix: PREFIX });

beforeAll(async () => {
  t = await createTestDatabase();
  ({ version } = await registerChallenge(t.db));
  redis = new Redis(env().REDIS_URL, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  processes.killAll();
  await Promise.all(workers.map((w) => w.close()));
  await deleteKeys(redis, `${PREFIX}:*`);
  redis.disconnect();
  await t?.drop();
});

/** A runner of every target that answers as the real one: timed on exactly the job's definition. */
function fakeRunners(carried: JobBenchmark[]): void {
  for (const target of TARGET_IDS)
    workers.push(
      new Worker(
        judgeQueueName(target),
        async (job: Job) => {
          const data = judgingJobSchema.parse(job.data);
          carried.push(data.benchmark!);
          const result = makeResult({
            slug: 'wordcount',
            version,
            target: target as TargetId,
            judgingId: data.judgingId,
          });
          return judgingJobResultSchema.parse({
            judgingId: data.judgingId,
            round: data.round,
            runnerId: `fake-${target}`,
            result: {
              ...result,
              benchmark: timedInput(data.benchmark!, data.benchmark!.seed ?? null),
            },
          });
        },
        { connection: redis.duplicate(), prefix: PREFIX },
      ),
    );
}

describe('one benchmark definition, whichever scorer makes the jobs', () => {
  it('a scorer with another environment re-queues lost judgings on the database’s definition', async () => {
    // npm start wrote the contest's definition: 1 MiB, its seed, at most 3 pairs.
    const defined = await defineBenchmarkOnce(t.db, 'wordcount', {
      sizeBytes: 1 << 20,
      seed: CONTEST_SEED,
      maxPairs: 3,
      generatorVersion: 1,
    });
    expect(defined.written).toBe(true);
    // Committed, then Redis lost its flow (never queued here): the reconciler's work.
    const created = await createSubmission(t.db, {
      userId: await makeUser(t.db),
      challengeSlug: 'wordcount',
      patchText: 'a correct patch',
    });
    const carried: JobBenchmark[] = [];
    fakeRunners(carried);

    const scorer = processes.start(
      ['scorer', '--reconcile-every', '1', '--reconcile-older-than', '0', '--name', 'second'],
      {
        DATABASE_URL: t.url,
        // The second host's environment: the manifest's size and a seed of its own.
        PERFJUDGE_BENCHMARK_SIZE: '256MiB',
        PERFJUDGE_INPUT_SIZE: '256MiB',
        PERFJUDGE_WORDCOUNT_SEED: 'a-seed-only-this-host-has',
      },
      /scorer ready/,
    );
    await scorer.isReady;

    let submission = await t.db.submission.findUniqueOrThrow({
      where: { id: created.submissionId },
    });
    for (let i = 0; i < 300 && submission.status !== 'DONE'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      submission = await t.db.submission.findUniqueOrThrow({ where: { id: created.submissionId } });
    }
    const output = scorer.output();
    expect(await stopProcess(scorer.child)).toBe(0);

    // It said its environment disagrees, and used the database's.
    expect(output).toContain(
      "wordcount: this process's environment differs from the contest's benchmark definition " +
        '(input size 256MiB here, 1MiB in the database; seed',
    );
    expect(output).toMatch(/missing from Redis, queued again/);
    expect(carried).toHaveLength(2);
    for (const benchmark of carried)
      expect(benchmark).toEqual({
        sizeBytes: 1 << 20,
        seed: CONTEST_SEED,
        development: true,
        maxPairs: 3,
        generatorVersion: 1,
        revision: 1,
      });
    // The correct submission is ranked, not failed for a definition two scorers disagreed on.
    expect(submission).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
    expect(submission.score).toBeGreaterThan(0);
    const judgings = await t.db.judging.findMany({
      where: { submissionId: created.submissionId },
      select: { verdict: true, message: true },
    });
    expect(judgings.map((j) => j.verdict)).toEqual(['ACCEPTED', 'ACCEPTED']);
    expect(JSON.stringify(judgings)).not.toContain('another benchmark input');
    expect(
      await t.db.leaderboardEntry.count({ where: { submissionId: created.submissionId } }),
    ).toBe(1);
  }, 60_000);
});
