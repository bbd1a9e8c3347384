// The fair host lock under load: 6 submissions on two targets whose runners share one host (one
// host lock), judged by real runner processes (linux-intel, and windows-amd emulated under Wine)
// and a real scorer. Prints, for every judging, how long it waited for the host lock and which
// judgings held it meanwhile, and the time until every submission is settled. Target: no judging
// waits behind a judging of a later submission (first come, first served between the runners).
// Private PostgreSQL schema, Redis prefix and lock file, removed after.
//   npm run bench -- host-lock [--count 6] [--patch FILE] [--input-size 1MiB]
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { judgingJobId, parseByteSize } from '../contracts';
import { loadChallenge } from '../lib/core/challenge/load-manifest';
import { env, REPO_ROOT } from '../lib/core/config/env';
import { upsertChallengeVersion } from '../lib/server/db/contest/upsert-challenge-version';
import { startProcess, stop } from './cli-process';
import { createHttpConnection } from '../lib/server/queue/connection';
import { createQueueSet } from '../lib/server/queue/producer';
import { submitPatch } from '../lib/server/submit/submit-patch';
import { deleteKeys } from '../dev/redis-keys';
import { createTestDatabase } from '../dev/database';
import { makeUser } from '../dev/db-fixtures';
import { median } from '../lib/core/stats';
import { TEST_DATA_DIR } from '../dev/test-data-dir';

const TARGETS = ['linux-intel', 'windows-amd'] as const;

interface Options {
  count: number;
  patch: string;
  inputSize: string;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    count: 6,
    patch: path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/baseline-copy.patch'),
    inputSize: '1MiB',
  };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1] ?? '';
    if (args[i] === '--count') {
      options.count = Number(value);
      if (!Number.isInteger(options.count) || options.count < 1 || options.count > 50)
        throw new Error(`--count: "${value}" is not from 1 to 50`);
    } else if (args[i] === '--patch') options.patch = path.resolve(value);
    else if (args[i] === '--input-size') options.inputSize = value;
    else throw new Error(`unknown option ${args[i]} (--count, --patch, --input-size)`);
    i++;
  }
  return options;
}

/** When each of a runner's log lines about a job appeared (its lines start with an ISO time). */
function lineTimes(output: string, jobId: string, pattern: RegExp): number[] {
  const found: number[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes(`job ${jobId}: `)) continue;
    const rest = line.slice(line.indexOf(`job ${jobId}: `) + jobId.length + 6);
    if (pattern.test(rest)) found.push(Date.parse(line.slice(0, line.indexOf(' '))));
  }
  return found;
}

interface JudgingTimes {
  submission: number;
  target: string;
  /** Taken from the queue by its runner: it asks for the host lock now. */
  asked: number;
  /** Got the host lock. */
  got: number;
  /** Ended (the lock released). */
  ended: number;
  verdict: string;
  /** The runner's attempt (a JUDGE_ERROR is retried after a backoff, taking the lock again). */
  attempt: number;
}

type Runner = ReturnType<typeof startProcess>;
type Db = Awaited<ReturnType<typeof createTestDatabase>>['db'];

export default async function hostLock(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const patchText = await readFile(options.patch, 'utf8');
  const prefix = `bench-host-lock-${randomBytes(4).toString('hex')}`;
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-bench-host-lock-'));
  // The sandbox's user works in the judgings' folders under it.
  await chmod(tmp, 0o755);
  const database = await createTestDatabase();
  const redis = createHttpConnection({ connectionName: 'perfjudge-bench-host-lock' });
  const queues = createQueueSet({ connection: redis, prefix });
  const processes: ChildProcess[] = [];
  try {
    const { db } = database;
    const { manifest } = await loadChallenge('wordcount');
    await upsertChallengeVersion(db, manifest);
    const userId = await makeUser(db);
    // The contest's benchmark input, carried by every job (runners never choose their own).
    const benchmarkBytes = parseByteSize(options.inputSize);
    if (!benchmarkBytes) throw new Error(`--input-size: "${options.inputSize}" is not a size`);
    await db.challenge.update({ where: { slug: 'wordcount' }, data: { benchmarkBytes } });

    const runners = await startServices(prefix, tmp, database.url, processes);
    // All submitted at once, in order: submission k's judgings are queued before k+1's.
    const started = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < options.count; i++) {
      const result = await submitPatch({
        db,
        queues,
        userId,
        challengeSlug: 'wordcount',
        patchText,
      });
      if (!result.ok) throw new Error(`rejected: ${result.message}`);
      ids.push(result.submissionId);
    }
    await waitSettled(db, ids, started);
    const settledMs = Date.now() - started;
    report(options, started, settledMs, await judgingTimes(db, ids, runners));
  } finally {
    await Promise.all(processes.map(stop));
    await queues.close();
    const scan = new Redis(env().REDIS_URL);
    await deleteKeys(scan, `${prefix}:*`);
    await scan.quit();
    await redis.quit();
    await database.drop();
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Both runners on this host with one lock file (the situation of npm start's two runners), and a
 * scorer; ready to judge. Their processes join `processes`, for the caller to stop.
 */
async function startServices(
  prefix: string,
  tmp: string,
  databaseUrl: string,
  processes: ChildProcess[],
): Promise<Runner[]> {
  const { DATABASE_URL: _notForRunners, ...inherited } = process.env;
  const base = {
    ...inherited,
    REDIS_URL: env().REDIS_URL,
    PERFJUDGE_QUEUE_PREFIX: prefix,
    PERFJUDGE_DATA_DIR: TEST_DATA_DIR,
  };
  const runnerArgs = (target: string) => [
    'runner',
    '--target',
    target,
    '--id',
    `bench-${target}`,
    '--dev-mode',
    '--public-size',
    '256KiB',
    '--runs',
    '3',
    '--no-deterministic',
    '--host-lock',
    path.join(tmp, 'host.lock'),
    '--work-root',
    path.join(tmp, `work-${target}`),
  ];
  const runners = TARGETS.map((target) =>
    startProcess(runnerArgs(target), base, new RegExp(`serving judge-${target}`)),
  );
  const scorer = startProcess(
    ['scorer', '--reconcile-every', '0'],
    { ...base, DATABASE_URL: databaseUrl },
    /scorer ready/,
  );
  processes.push(...runners.map((r) => r.child), scorer.child);
  await Promise.all([...runners.map((r) => r.isReady), scorer.isReady]);
  return runners;
}

async function waitSettled(db: Db, ids: string[], started: number): Promise<void> {
  for (;;) {
    const open = await db.submission.count({
      where: { id: { in: ids }, status: { notIn: ['DONE', 'FAILED'] } },
    });
    if (open === 0) return;
    if (Date.now() - started > 60 * 60_000) throw new Error('not settled within an hour');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every judging attempt's times, read from its runner's log lines. */
async function judgingTimes(db: Db, ids: string[], runners: Runner[]): Promise<JudgingTimes[]> {
  const times: JudgingTimes[] = [];
  for (const [index, submissionId] of ids.entries()) {
    const judgings = await db.judging.findMany({
      where: { submissionId },
      select: {
        id: true,
        round: true,
        verdict: true,
        status: true,
        target: { select: { name: true } },
      },
    });
    for (const j of judgings) {
      const runner = runners[TARGETS.indexOf(j.target.name as (typeof TARGETS)[number])]!;
      const jobId = judgingJobId(j.id, j.round);
      const out = runner.output();
      // One row per attempt: each one asks for the lock, holds it and ends (a retry after a
      // JUDGE_ERROR ends with "…, to be retried").
      const ends = [
        ...lineTimes(out, jobId, /^[A-Z_]+ in [\d.]+ s(,|$)/),
        ...lineTimes(out, jobId, /^stopped, /),
      ].sort((a, b) => a - b);
      const ours = lineTimes(out, jobId, /^the host lock is ours$/);
      for (const [n, asked] of lineTimes(out, jobId, /^attempt \d+ of/).entries()) {
        const ended = ends.find((t) => t >= asked) ?? NaN;
        const got = ours.find((t) => t >= asked && !(t > ended)) ?? asked;
        const retried = Number.isFinite(ended) && ends.at(-1) !== ended;
        times.push({
          submission: index + 1,
          target: j.target.name,
          asked,
          got,
          ended,
          verdict: retried ? 'retried' : (j.verdict ?? j.status),
          attempt: n + 1,
        });
      }
    }
  }
  return times;
}

/** The table: who held the lock while each judging waited, and whether any came from a later submission. */
function report(options: Options, started: number, settledMs: number, times: JudgingTimes[]): void {
  const rows = times
    .sort((a, b) => a.got - b.got)
    .map((t) => {
      const heldMeanwhile = times.filter((o) => o !== t && o.got < t.got && o.ended > t.asked);
      // Unfair: a judging of a later submission (queued after this one) went first.
      const later = heldMeanwhile.filter((o) => o.submission > t.submission);
      return { ...t, heldMeanwhile, later };
    });
  const s = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : '?');
  const lines = [
    `host-lock: ${options.count} submissions (${path.basename(options.patch)}) × ${TARGETS.join(' + ')} on one host, one lock; ${options.inputSize} benchmark input, ≤3 pairs`,
    `  ${'#'.padEnd(3)}${'target'.padEnd(13)}${'asked at'.padStart(9)}${'waited'.padStart(9)}${'judged'.padStart(9)}  ${'verdict'.padEnd(13)}held the lock meanwhile`,
    ...rows.map(
      (r) =>
        `  ${String(r.submission).padEnd(3)}${`${r.target}${r.attempt > 1 ? ` #${r.attempt}` : ''}`.padEnd(13)}${`${s(r.asked - started)} s`.padStart(9)}${`${s(r.got - r.asked)} s`.padStart(9)}${`${s(r.ended - r.got)} s`.padStart(9)}  ${r.verdict.padEnd(13)}${
          r.heldMeanwhile.map((o) => `#${o.submission} ${o.target}`).join(', ') || '-'
        }${r.later.length ? `  ← ${r.later.length} unfair` : ''}`,
    ),
    `  waits: median ${s(median(rows.map((r) => r.got - r.asked).filter(Number.isFinite)))} s, max ${s(Math.max(...rows.map((r) => r.got - r.asked)))} s; most judgings held the lock while one waited: ${Math.max(...rows.map((r) => r.heldMeanwhile.length))}`,
    `  settled all ${options.count} submissions in ${s(settledMs)} s`,
    `  judgings that waited behind a judging of a later submission: ${rows.filter((r) => r.later.length).length} (target 0)`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}
