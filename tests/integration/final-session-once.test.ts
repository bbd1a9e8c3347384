// A final session part is timed once at a time, even when Redis loses its job mid-session: a real
// runner process timing a real final evaluation's part, FLUSHALL on a PRIVATE redis-server (the
// shared one is never flushed), the real scorer's final reconciler re-queuing the part from
// PostgreSQL (own schema) under the same job id. The runner, which holds several jobs at once,
// takes the copy while it still times the lost part: the copy must wait for that session and
// answer with its result (runner/service/judgings-in-hand.ts, the rule judgings follow), never
// start a second session of the part; every round is recorded once and the evaluation ends.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { finalSessionJobId } from '../../contracts/final';
import type { Manifest } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { upsertChallengeVersion } from '../../lib/server/db/contest/upsert-challenge-version';
import { createWorkerConnection } from '../../lib/server/queue/connection';
import { createQueueSet } from '../../lib/server/queue/producer';
import { startFinalEvaluation } from '../../lib/server/submit/final-evaluation';
import { startScorer } from '../../scorer/scorer';
import type { ReconcileReport } from '../../scorer/reconcile';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser } from '../../dev/db-fixtures';
import { acceptedSubmission } from '../helpers/final-fixtures';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis';
import { smallJudgingArgs, spawnRunner, type RunnerProcess } from '../helpers/queue';

const PREFIX = 'pjfinalonce';
/** Rounds enough (about 0.15 s each here) that the copy arrives long before the session ends. */
const ROUNDS = 20;

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
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pj-final-once-'));
  // The sandbox's unprivileged user reaches the work root through it.
  await chmod(tmp, 0o755);
  const { manifest } = await loadChallenge('wordcount');
  // One target (the runner's), a closed contest and a tiny benchmark input: the session lasts
  // seconds.
  await upsertChallengeVersion(database.db, {
    ...manifest,
    targets: { 'linux-intel': manifest.targets['linux-intel'] },
  } as Manifest);
  await database.db.challenge.update({
    where: { slug: 'wordcount' },
    data: { closedAt: new Date(), benchmarkBytes: 1 << 20 },
  });
  const patch = await readFile(
    path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
    'utf8',
  );
  await acceptedSubmission(database.db, {
    userId: await makeUser(database.db, 'once-finalist'),
    slug: 'wordcount',
    version: manifest.version,
    speedup: 2,
    patch,
  });
});

afterAll(async () => {
  runner?.stop('SIGKILL');
  await runner?.exited;
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await redis?.dispose();
  await database?.drop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

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
        `timed out waiting for ${what}\n--- scorer\n${log.slice(-30).join('\n')}\n--- runner\n${runner?.output().slice(-4000)}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('FLUSHALL mid-session: the runner takes the re-queued part but never times it beside the session in hand', async () => {
  const { db } = database;
  const queues = createQueueSet({
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
    // The flushed part was started seconds before: fair game at once.
    reconcileOlderThanMs: 500,
    trackClaims: true,
    log: (line) => log.push(line),
    onReconciled: (r) => reports.push(r),
  });
  closers.push(() => scorer.close());
  await scorer.ready();
  const dir = path.join(tmp, 'runner');
  runner = spawnRunner({
    prefix: PREFIX,
    id: 'final-once-runner',
    args: smallJudgingArgs(dir),
    env: { REDIS_URL: redis.url },
  });
  await runner.waitFor(/serving judge-linux-intel/, 120_000);

  const started = await startFinalEvaluation({
    db,
    queues,
    actorId: await makeUser(db, 'once-organizer'),
    challengeSlug: 'wordcount',
    rounds: ROUNDS,
  });
  const session = await db.finalSession.findFirstOrThrow({
    where: { evaluationId: started.evaluationId },
    select: { id: true },
  });
  const jobId = finalSessionJobId(session.id, 0);
  // As soon as the session is in hand: its builds and rounds still to come leave the reconciler
  // seconds to re-queue the part before the session ends, however fast the host.
  await runner.waitFor(new RegExp(`job ${jobId}: final session \\S+ part 0, attempt 1`), 240_000);
  await redis.flushAll();
  await until(
    'the reconciler to re-queue the part',
    async () => reports.some((r) => r.finalRequeued.includes(jobId)),
    30_000,
  );
  const done = await until(
    'the evaluation to end',
    async () => {
      const e = await db.finalEvaluation.findUniqueOrThrow({
        where: { id: started.evaluationId },
        select: { status: true, message: true, sessions: { select: { rounds: true } } },
      });
      return e.status !== 'RUNNING' ? e : null;
    },
    240_000,
  );
  const output = runner.output();
  const lines = output.split('\n').filter((l) => l.includes(`job ${jobId}:`));
  console.log(lines.join('\n'));
  expect(done, output).toMatchObject({ status: 'DONE', message: null });
  // Every round recorded, each once.
  const rounds = (done.sessions[0]?.rounds as { round: number }[]).map((r) => r.round);
  expect(rounds).toEqual([...Array(ROUNDS).keys()]);
  // The part was timed once (without the rule, the copy times all its rounds again) …
  expect(
    lines.filter((l) => /: \d+ rounds in /.test(l)),
    output,
  ).toHaveLength(1);
  // … the copy was taken while the session was in hand (else this test proves nothing) …
  expect(
    lines.some((l) => l.includes('this runner is already judging it')),
    output,
  ).toBe(true);
  // … and answered with that session's result: one session of the part ever started.
  expect(
    lines.filter((l) => /: final session \S+ part 0, attempt/.test(l)),
    output,
  ).toHaveLength(1);
  expect(
    lines.some((l) => /rounds, the answer of the attempt that was in hand/.test(l)),
    output,
  ).toBe(true);
}, 480_000);
