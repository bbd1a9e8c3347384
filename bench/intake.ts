// Intake throughput: submissions per second accepted (intake check, committed to PostgreSQL) and
// queued (a BullMQ flow each), with several requests in flight as a web server would have, then a
// count that none was lost. Uses a private PostgreSQL schema and its own Redis key prefix, removed after.
//   npm run bench -- intake [--count 500] [--concurrency 16] [--patch FILE]
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { judgeQueueName, judgingScoreJobId, type TargetId } from '../contracts';
import { REPO_ROOT } from '../lib/core/config/env';
import { createHttpConnection } from '../lib/server/queue/connection';
import { createQueueSet } from '../lib/server/queue/producer';
import { submitPatch } from '../lib/server/submit/submit-patch';
import { median, quantileOfSorted, sorted } from '../lib/core/stats';
import { deleteKeys } from '../dev/redis-keys';
import { createTestDatabase } from '../dev/database';
import { makeUser, registerChallenge } from '../dev/db-fixtures';

interface Options {
  count: number;
  concurrency: number;
  patch: string;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    count: 500,
    concurrency: 16,
    patch: path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
  };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1] ?? '';
    switch (args[i]) {
      case '--count':
      case '--concurrency': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${args[i]}: "${value}" is not ≥ 1`);
        if (args[i] === '--count') options.count = n;
        else options.concurrency = n;
        i++;
        break;
      }
      case '--patch':
        options.patch = path.resolve(value);
        i++;
        break;
      default:
        throw new Error(`unknown option ${args[i]} (--count, --concurrency, --patch)`);
    }
  }
  return options;
}

export default async function intake(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const patchText = await readFile(options.patch, 'utf8');
  const prefix = `bench-intake-${randomBytes(4).toString('hex')}`;
  const database = await createTestDatabase();
  // The connection a web server would use: with Redis down, fail at once instead of holding requests.
  const redis = createHttpConnection({ connectionName: 'perfjudge-bench-intake' });
  const queues = createQueueSet({ connection: redis, prefix });
  try {
    const { db } = database;
    const manifest = await registerChallenge(db);
    // Many contestants: the quota (submissions per hour) is not what is measured.
    const users = await Promise.all(
      Array.from({ length: Math.min(options.count, 50) }, () => makeUser(db)),
    );
    // Warm-up: the first submission loads the challenge's file lists and opens the pools.
    await submitPatch({ db, queues, userId: users[0]!, challengeSlug: 'wordcount', patchText });

    const latencies: number[] = [];
    const ids: string[] = [];
    let notQueued = 0;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.count) {
          const i = next++;
          const t0 = performance.now();
          const result = await submitPatch({
            db,
            queues,
            userId: users[i % users.length]!,
            challengeSlug: 'wordcount',
            patchText,
          });
          latencies.push(performance.now() - t0);
          if (!result.ok) throw new Error(`submission ${i} rejected: ${result.message}`);
          if (!result.queued) notQueued++;
          ids.push(result.submissionId);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;

    // None lost: every submission in PostgreSQL, and its score job and judging jobs in Redis.
    const stored = await db.submission.count({ where: { id: { in: ids } } });
    // One score parent per judging (per target).
    const judgings = await db.judging.findMany({
      where: { submissionId: { in: ids } },
      select: { id: true, round: true },
    });
    const parents = await Promise.all(
      judgings.map((j) => queues.scoreQueue().getJobState(judgingScoreJobId(j.id, j.round))),
    );
    const missingParents = parents.filter((s) => s === 'unknown').length;
    const targets = Object.keys(manifest.targets) as TargetId[];
    const waiting: Record<string, number> = {};
    for (const target of targets)
      waiting[target] = await queues.queue(judgeQueueName(target)).count();

    const xs = sorted(latencies);
    process.stdout.write(
      [
        `intake: ${options.count} submissions of ${Buffer.byteLength(patchText)} bytes, ${options.concurrency} in flight`,
        `  accepted and queued: ${(options.count / seconds).toFixed(0)} submissions/s (${seconds.toFixed(2)} s)`,
        `  per submission: median ${median(xs).toFixed(1)} ms, p95 ${quantileOfSorted(xs, 0.95).toFixed(1)} ms`,
        `  stored in PostgreSQL: ${stored}/${options.count}; score jobs in Redis: ${parents.length - missingParents}/${judgings.length}; not queued: ${notQueued}`,
        `  judging jobs waiting per target (incl. warm-up): ${targets.map((t) => `${t} ${waiting[t]}`).join(', ')}`,
        stored === options.count && judgings.length > 0 && missingParents === 0 && notQueued === 0
          ? '  none lost'
          : '  LOST SUBMISSIONS',
        '',
      ].join('\n'),
    );
  } finally {
    await queues.close();
    await deleteKeys(redis, `${prefix}:*`);
    await redis.quit();
    await database.drop();
  }
}
