// End-to-end latency of a no-op patch on a tiny input: submitPatch → a real runner process judges it
// → a real scorer process records it → the score is in PostgreSQL. Prints median and p95, and how
// much of it is spent outside the judge's building and running (queues, scorer, database).
// Only linux-intel is registered: this host has no Windows runner (nor Wine), and a score needs
// every target of the challenge version. Private PostgreSQL schema and Redis prefix, removed after.
//   npm run bench -- latency [--count 10] [--patch FILE]
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { judgingJobId, judgingScoreJobId, type Manifest } from '../contracts';
import { loadChallenge } from '../lib/core/challenge/load-manifest';
import { env, REPO_ROOT } from '../lib/core/config/env';
import { upsertChallengeVersion } from '../lib/server/db/contest/upsert-challenge-version';
import { startProcess, stop } from './cli-process';
import { createHttpConnection } from '../lib/server/queue/connection';
import { createQueueSet } from '../lib/server/queue/producer';
import { submitPatch } from '../lib/server/submit/submit-patch';
import { median, quantileOfSorted, sorted } from '../lib/core/stats';
import { deleteKeys } from '../dev/redis-keys';
import { createTestDatabase } from '../dev/database';
import { makeUser } from '../dev/db-fixtures';

/** The judge's own work: everything else is the backbone's overhead. */
const BUILD_AND_RUN_STAGES = ['build', 'test', 'measure', 'profile'] as const;

interface Options {
  count: number;
  patch: string;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    count: 10,
    patch: path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/baseline-copy.patch'),
  };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1] ?? '';
    if (args[i] === '--count') {
      options.count = Number(value);
      if (!Number.isInteger(options.count) || options.count < 1)
        throw new Error(`--count: "${value}" is not ≥ 1`);
    } else if (args[i] === '--patch') options.patch = path.resolve(value);
    else throw new Error(`unknown option ${args[i]} (--count, --patch)`);
    i++;
  }
  return options;
}

/** Milliseconds from one job timestamp to another; null when either is missing (0 or undefined). */
function elapsed(from: number | undefined, to: number | undefined): number | null {
  return from && to ? to - from : null;
}

function describe(label: string, values: (number | null)[]): string {
  const xs = sorted(values.filter((x): x is number => x !== null));
  if (xs.length < values.length)
    return `  ${label.padEnd(36)} unknown for ${values.length - xs.length} of ${values.length} (the job was removed or has no times)`;
  return `  ${label.padEnd(36)} median ${median(xs).toFixed(0).padStart(6)} ms   p95 ${quantileOfSorted(xs, 0.95).toFixed(0).padStart(6)} ms`;
}

type Db = Awaited<ReturnType<typeof createTestDatabase>>['db'];
type Queues = ReturnType<typeof createQueueSet>;
type Runner = ReturnType<typeof startProcess>;

/** One submission's times, in ms (null: its queue job was removed or has no times). */
interface Row {
  total: number;
  submit: number;
  judge: number;
  buildAndRun: number;
  queueWait: number | null;
  toScorer: number | null;
  scoring: number | null;
}

export default async function latency(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const patchText = await readFile(options.patch, 'utf8');
  const prefix = `bench-latency-${randomBytes(4).toString('hex')}`;
  const database = await createTestDatabase();
  const redis = createHttpConnection({ connectionName: 'perfjudge-bench-latency' });
  const queues = createQueueSet({ connection: redis, prefix });
  const processes: ChildProcess[] = [];
  try {
    const { db } = database;
    const { manifest } = await loadChallenge('wordcount');
    const linuxOnly: Manifest = {
      ...manifest,
      targets: { 'linux-intel': manifest.targets['linux-intel'] },
    } as Manifest;
    await upsertChallengeVersion(db, linuxOnly);
    // The contest's benchmark input, carried by every job (runners never choose their own): tiny.
    await db.challenge.update({ where: { slug: 'wordcount' }, data: { benchmarkBytes: 1 << 20 } });
    const userId = await makeUser(db);
    const runner = await startServices(prefix, database.url, processes);

    const rows: Row[] = [];
    // One more than asked: the first builds the baseline and generates the inputs (cold caches).
    for (let i = 0; i <= options.count; i++) {
      const row = await submitAndTime(db, queues, runner, userId, patchText);
      if (i === 0) {
        process.stdout.write(`latency: warm-up submission took ${row.total} ms (cold caches)\n`);
        continue;
      }
      rows.push(row);
    }
    report(options, rows);
  } finally {
    await Promise.all(processes.map(stop));
    await queues.close();
    const scan = new Redis(env().REDIS_URL);
    await deleteKeys(scan, `${prefix}:*`);
    await scan.quit();
    await redis.quit();
    await database.drop();
  }
}

/** A linux-intel runner (Redis only, as on a judge host) and a scorer, ready. */
async function startServices(
  prefix: string,
  databaseUrl: string,
  processes: ChildProcess[],
): Promise<Runner> {
  const { DATABASE_URL: _notForRunners, ...inherited } = process.env;
  const base = { ...inherited, REDIS_URL: env().REDIS_URL, PERFJUDGE_QUEUE_PREFIX: prefix };
  const runner = startProcess(
    [
      'runner',
      '--target',
      'linux-intel',
      '--dev-mode',
      '--public-size',
      '256KiB',
      '--runs',
      '3',
      '--no-deterministic',
    ],
    base,
    /serving judge-linux-intel/,
  );
  const scorer = startProcess(
    ['scorer', '--reconcile-every', '0'],
    { ...base, DATABASE_URL: databaseUrl },
    /scorer ready/,
  );
  processes.push(runner.child, scorer.child);
  await Promise.all([runner.isReady, scorer.isReady]);
  return runner;
}

/** Submits the patch, waits until it is settled, and reads where the time went. */
async function submitAndTime(
  db: Db,
  queues: Queues,
  runner: Runner,
  userId: string,
  patchText: string,
): Promise<Row> {
  const t0 = Date.now();
  const result = await submitPatch({
    db,
    queues,
    userId,
    challengeSlug: 'wordcount',
    patchText,
  });
  const submitted = Date.now();
  if (!result.ok) throw new Error(`rejected: ${result.message}`);
  for (;;) {
    const s = await db.submission.findUniqueOrThrow({
      where: { id: result.submissionId },
      select: { status: true },
    });
    if (s.status === 'DONE' || s.status === 'FAILED') break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const total = Date.now() - t0;
  const judging = await db.judging.findFirstOrThrow({
    where: { submissionId: result.submissionId },
    select: { id: true, round: true, verdict: true, result: true },
  });
  if (judging.verdict !== 'ACCEPTED')
    throw new Error(`verdict ${judging.verdict}:\n${runner.output().slice(-2000)}`);
  const judged = judging.result as {
    durationMs: number;
    stageDurationsMs: Record<string, number>;
  };
  const child = await queues
    .judgeQueue('linux-intel')
    .getJob(judgingJobId(judging.id, judging.round));
  const parent = await queues.scoreQueue().getJob(judgingScoreJobId(judging.id, judging.round));
  return {
    total,
    submit: submitted - t0,
    judge: judged.durationMs,
    buildAndRun: BUILD_AND_RUN_STAGES.reduce((a, s) => a + (judged.stageDurationsMs[s] ?? 0), 0),
    queueWait: elapsed(child?.timestamp, child?.processedOn),
    // A job's times are missing once it is removed or before it ran: no figure, not a negative one.
    toScorer: elapsed(child?.finishedOn, parent?.processedOn),
    scoring: elapsed(parent?.processedOn, parent?.finishedOn),
  };
}

function report(options: Options, rows: Row[]): void {
  const col = (k: keyof Row) => rows.map((r) => r[k]);
  process.stdout.write(
    [
      `latency: ${options.count} no-op submissions (${path.basename(options.patch)}), linux-intel, 1 MiB benchmark input, ≤3 pairs`,
      describe('submit → score recorded', col('total')),
      describe(
        '  outside building and running',
        rows.map((r) => r.total - r.buildAndRun),
      ),
      describe(
        '  outside the judge (whole judging)',
        rows.map((r) => r.total - r.judge),
      ),
      describe('  submitPatch (check, store, queue)', col('submit')),
      describe('  waiting in the judge queue', col('queueWait')),
      describe('  judging (runner)', col('judge')),
      describe('    of which build, test, measure', col('buildAndRun')),
      describe('  runner done → scorer starts', col('toScorer')),
      describe('  scorer recording', col('scoring')),
      '',
    ].join('\n'),
  );
}
