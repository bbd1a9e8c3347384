// A judging is judged once at a time, even when Redis loses it mid-judging: a real runner process
// judging a real submission, FLUSHALL on a PRIVATE redis-server (the shared one is never flushed),
// the real scorer's reconciler re-queuing the judging from PostgreSQL (own schema) under the same
// job id. BullMQ tracks a worker's jobs by id: the runner, which holds several jobs at once, takes
// the re-queued copy while it still judges the lost one. Two judge() calls of one judging at once
// would share the host and, in BullMQ's books, one lock: the copy must wait for the judging in
// hand and answer with its result (the outbox), recording its runs exactly once.
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { judgingResultSchema, type Manifest } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { upsertChallengeVersion } from '../../lib/server/db/contest/upsert-challenge-version';
import { createWorkerConnection } from '../../lib/server/queue/connection';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { startScorer } from '../../scorer/scorer';
import type { ReconcileReport } from '../../scorer/reconcile';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser } from '../../dev/db-fixtures';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis';
import { smallJudgingArgs, spawnRunner, type RunnerProcess } from '../helpers/queue';

const PATCH = readFileSync(
  path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
  'utf8',
);
const PREFIX = 'pjonce';
/** The scratch folders runner/judge/scratch.ts makes, one per judge() call in progress. */
const SCRATCH_PREFIX = 'perfjudge-judging-';

let database: TestDatabase;
let redis: PrivateRedis;
let tmp: string;
let runner: RunnerProcess | undefined;
const closers: (() => Promise<unknown>)[] = [];
const log: string[] = [];

function connection(purpose: string): Redis {
  const c = createWorkerConnection({ url: redis.url, connectionName: purpose, onError: () => {} });
  closers.push(() => c.quit().catch(() => c.disconnect()));
  return c;
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  database = await createTestDatabase();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pj-judging-once-'));
  // The sandbox's unprivileged user reaches the work root through it.
  await chmod(tmp, 0o755);
  const { manifest } = await loadChallenge('wordcount');
  // One target (the runner's): the submission settles on this judging alone.
  await upsertChallengeVersion(database.db, {
    ...manifest,
    targets: { 'linux-intel': manifest.targets['linux-intel'] },
  } as Manifest);
  // The contest's benchmark input, carried by the job: tiny, so the judging lasts seconds.
  await database.db.challenge.update({
    where: { slug: 'wordcount' },
    data: { benchmarkBytes: 1 << 20 },
  });
});

afterAll(async () => {
  runner?.stop('SIGKILL');
  if (runner) await runner.exited;
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await redis?.dispose();
  await database?.drop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The most judge() calls seen at once in the runner's work root, polled until `stop()`. */
function watchScratch(workRoot: string): { most(): number; stop(): void } {
  let most = 0;
  const timer = setInterval(() => {
    void readdir(workRoot)
      .then((names) => {
        most = Math.max(most, names.filter((n) => n.startsWith(SCRATCH_PREFIX)).length);
      })
      .catch(() => {});
  }, 50);
  return { most: () => most, stop: () => clearInterval(timer) };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}\n--- scorer\n${log.slice(-30).join('\n')}\n--- runner\n${runner?.output().slice(-6000)}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('FLUSHALL mid-judging: the re-queued copy is not judged beside the judging in hand, and its runs are recorded once', async () => {
  const { db } = database;
  const queues: QueueSet = createQueueSet({
    connection: connection('producer'),
    prefix: PREFIX,
    enqueueTimeoutMs: 2_000,
  });
  closers.push(() => queues.close());
  const reports: ReconcileReport[] = [];
  const scorer = startScorer({
    db,
    queues,
    connect: connection,
    reconcileEveryMs: 500,
    // The flushed judging was claimed seconds before: fair game at once.
    reconcileOlderThanMs: 500,
    trackClaims: true,
    log: (line) => log.push(line),
    onReconciled: (r) => reports.push(r),
  });
  closers.push(() => scorer.close());
  await scorer.ready();
  // The default lock (60 s, renewed every 15 s): the runner learns of the lost lock late, as in
  // production, so the reconciler's copy arrives while the first judging still runs.
  runner = spawnRunner({
    prefix: PREFIX,
    id: 'once-runner',
    args: smallJudgingArgs(tmp),
    env: { REDIS_URL: redis.url },
  });
  await runner.waitFor(/serving judge-linux-intel/, 120_000);

  const userId = await makeUser(db);
  const submitted = await submitPatch({
    db,
    queues,
    userId,
    challengeSlug: 'wordcount',
    patchText: PATCH,
  });
  if (!submitted.ok) throw new Error(submitted.message);
  const id = submitted.submissionId;
  const scratch = watchScratch(path.join(tmp, 'work'));
  try {
    // Mid-judging: past the host lock, judge() under way.
    await until(
      'the judging to start',
      async () =>
        (await db.judging.findFirst({ where: { submissionId: id, status: 'JUDGING' } })) !== null,
      120_000,
    );
    await redis.flushAll();
    await until(
      'the reconciler to re-queue the judging',
      async () => reports.some((r) => r.requeued.includes(id)),
      30_000,
    );
    await until(
      'the submission to settle',
      async () => {
        const s = await db.submission.findUniqueOrThrow({ where: { id } });
        return s.status === 'DONE' || s.status === 'FAILED';
      },
      300_000,
    );
  } finally {
    scratch.stop();
  }
  const output = runner.output();
  const s = await db.submission.findUniqueOrThrow({
    where: { id },
    select: {
      status: true,
      verdict: true,
      judgings: { select: { id: true, status: true, result: true } },
    },
  });
  expect(s, output).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
  const [judging] = s.judgings;
  const result = judgingResultSchema.parse(judging?.result);
  // The runs of the one result, recorded once.
  expect(await db.run.count({ where: { judgingId: judging!.id } })).toBe(
    result.stages.measure?.runs.length,
  );
  // Never judged twice at once …
  expect(scratch.most(), output).toBe(1);
  // … though the runner did take the copy while it judged (else this test proves nothing).
  const jobId = `judging-${judging!.id}-r0`;
  const taken = output
    .split('\n')
    .filter((l) => l.includes(`job ${jobId}: attempt`) || l.includes(`job ${jobId}: this runner`));
  expect(taken.length, output).toBeGreaterThanOrEqual(2);
  console.log(
    output
      .split('\n')
      .filter((l) => l.includes(jobId))
      .join('\n'),
  );
}, 480_000);
