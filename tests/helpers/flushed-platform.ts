// The platform that judging-once.test.ts and final-session-once.test.ts flush under a runner: a
// PRIVATE redis-server (FLUSHALL never reaches the shared one), a private database schema with
// wordcount on linux-intel alone (the runners' target) and a tiny benchmark input, a folder the
// sandbox's user reaches for the runners' work roots, and the real scorer with a reconciler quick
// enough to re-queue what the flush lost within a second.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Manifest } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { upsertChallengeVersion } from '../../lib/server/db/contest/upsert-challenge-version';
import { createWorkerConnection } from '../../lib/server/queue/connection';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import type { ReconcileReport } from '../../scorer/reconcile';
import { startScorer } from '../../scorer/scorer';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { startPrivateRedis, type PrivateRedis } from './private-redis';

export interface FlushedPlatform {
  database: TestDatabase;
  redis: PrivateRedis;
  /** The test's folder (mode 755): the runners' host locks and work roots go below it. */
  tmp: string;
  /** The version of wordcount registered. */
  version: number;
  /** The scorer's lines, for a failure message. */
  log: string[];
  /** A connection to the private Redis, closed by close(). */
  connection(purpose: string): Redis;
  /** The producer and the scorer (reconciling every 0.5 s), started once; its reconcile reports. */
  startScorer(): Promise<{ queues: QueueSet; reports: ReconcileReport[] }>;
  /** Polls until `probe` answers; a timeout shows the scorer's last lines and `runnerOutput()`. */
  until<T>(
    what: string,
    probe: () => Promise<T | undefined | null | false>,
    ms: number,
  ): Promise<T>;
  close(): Promise<void>;
}

export async function startFlushedPlatform(options: {
  prefix: string;
  /** The challenge row's changes beyond the tiny benchmark input (a closed contest). */
  challenge?: { closedAt?: Date };
  /** The runners' output, for a timeout's message. */
  runnerOutput: () => string;
}): Promise<FlushedPlatform> {
  const redis = await startPrivateRedis();
  const database = await createTestDatabase();
  const tmp = await mkdtemp(path.join(os.tmpdir(), `pj-${options.prefix}-`));
  await chmod(tmp, 0o755);
  const { manifest } = await loadChallenge('wordcount');
  await upsertChallengeVersion(database.db, {
    ...manifest,
    targets: { 'linux-intel': manifest.targets['linux-intel'] },
  } as Manifest);
  // The contest's benchmark input, carried by every job: tiny, so a judging lasts seconds.
  await database.db.challenge.update({
    where: { slug: 'wordcount' },
    data: { benchmarkBytes: 1 << 20, ...options.challenge },
  });
  const closers: (() => Promise<unknown>)[] = [];
  const log: string[] = [];
  const connection = (purpose: string): Redis => {
    const c = createWorkerConnection({
      url: redis.url,
      connectionName: purpose,
      onError: () => {},
    });
    closers.push(() => c.quit().catch(() => c.disconnect()));
    return c;
  };
  let scorer: Promise<{ queues: QueueSet; reports: ReconcileReport[] }> | undefined;
  return {
    database,
    redis,
    tmp,
    version: manifest.version,
    log,
    connection,
    startScorer: () =>
      (scorer ??= startQuickScorer(database, options.prefix, connection, log, closers)),
    async until(what, probe, ms) {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await probe();
        if (value) return value;
        if (Date.now() > deadline)
          throw new Error(
            `timed out waiting for ${what}\n--- scorer\n${log.slice(-30).join('\n')}\n--- runners\n${options.runnerOutput()}`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close() {
      for (const close of closers.splice(0).reverse()) await close().catch(() => {});
      await redis.dispose();
      await database.drop();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

async function startQuickScorer(
  database: TestDatabase,
  prefix: string,
  connection: (purpose: string) => Redis,
  log: string[],
  closers: (() => Promise<unknown>)[],
): Promise<{ queues: QueueSet; reports: ReconcileReport[] }> {
  const queues = createQueueSet({
    connection: connection('producer'),
    prefix,
    enqueueTimeoutMs: 2_000,
  });
  closers.push(() => queues.close());
  const reports: ReconcileReport[] = [];
  const scorer = startScorer({
    db: database.db,
    queues,
    connect: connection,
    reconcileEveryMs: 500,
    // What the flush lost was claimed seconds before: fair game at once.
    reconcileOlderThanMs: 500,
    trackClaims: true,
    log: (line) => log.push(line),
    onReconciled: (r) => reports.push(r),
  });
  closers.push(() => scorer.close());
  await scorer.ready();
  return { queues, reports };
}
