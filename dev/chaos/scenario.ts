// The chaos drill (issue 27): the platform's real processes — a `perfjudge runner` per target
// (linux-intel in development mode, windows-amd emulated under Wine), a `perfjudge scorer` — on a
// private PostgreSQL cluster and a private key prefix of this machine's Redis, judging a seeded
// set of submissions while seeded faults strike at seeded moments: kill -9 of a runner or the
// scorer (started again after a while, as npm start's supervision does), a second scorer started
// with another environment (another benchmark size and seed), a Redis loss (every key of the
// drill's prefix deleted: what FLUSHALL does to this platform, without touching other users of the
// server), and a PostgreSQL crash and restart (an immediate shutdown of the private cluster).
// Then it checks the invariants (invariants.ts). Used by tests/integration/chaos.test.ts and
// `npm run bench -- chaos`.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { judgingResultSchema, type JobBenchmark, type Manifest } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import { createDbClient, type Db } from '../../lib/server/db/client';
import {
  defineBenchmarkOnce,
  getContestBenchmark,
} from '../../lib/server/db/contest/contest-benchmark';
import { applyMigrations } from '../../lib/server/db/migrate';
import { upsertChallengeVersion } from '../../lib/server/db/contest/upsert-challenge-version';
import { createWorkerConnection } from '../../lib/server/queue/connection';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { checkHealth } from '../../lib/server/web/health';
import {
  findPostgresBin,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../scripts/start/private-stores';
import { sweepStaleScratch } from '../../runner/service/work-root';
import { makeUser } from '../db-fixtures';
import { deleteKeys, flushKeys } from '../redis-keys';
import { TEST_DATA_DIR } from '../test-data-dir';
import {
  judgeChaos,
  type ChaosRecords,
  type ChaosVerdict,
  type FaultRecord,
  type HealthSample,
  type TimedLine,
} from './invariants';
import {
  CHAOS_TARGETS,
  planChaos,
  type ChaosPlan,
  type ChaosTarget,
  type PlannedFault,
  type PlanOptions,
} from './plan';
import { ServiceSlot } from './services';

/** The contest's definition, written once as npm start writes it: tiny, 3 pairs, its own seed. */
const CONTEST = { sizeBytes: 1 << 20, seed: 'the-chaos-contest-seed', maxPairs: 3 };
const SEED_ENV = 'PERFJUDGE_WORDCOUNT_SEED';
/** A health check that has not answered after this long counts as no answer. */
const HEALTH_PATIENCE_MS = 5_000;
const HEALTH_EVERY_MS = 250;
/** Health may still fail this long after PostgreSQL is back (pools reconnect on use). */
const HEALTH_GRACE_MS = 5_000;

export interface ChaosOptions extends PlanOptions {
  /** Give up waiting for every submission to settle after this long (ms). */
  settleTimeoutMs: number;
  log: (line: string) => void;
  /** Told every line of every service as it arrives. */
  echo?: (line: string) => void;
}

export interface ChaosReport {
  plan: ChaosPlan;
  verdict: ChaosVerdict;
  wallMs: number;
  /** The services' last lines, for a failure message. */
  logs(): string;
}

interface Drill {
  options: ChaosOptions;
  prefix: string;
  tmp: string;
  postgres: PrivatePostgres;
  databaseUrl: string;
  db: Db;
  redis: Redis;
  queues: QueueSet;
  runners: Record<ChaosTarget, ServiceSlot>;
  scorer: ServiceSlot;
  secondScorer: ServiceSlot;
  faults: FaultRecord[];
  health: HealthSample[];
  submitted: string[];
  stopping: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the drill of a seed and judges it; every process and store it started is gone after. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const plan = planChaos(options);
  const started = Date.now();
  const drill = await setUp(options);
  const definition = await getContestBenchmark(drill.db, 'wordcount');
  try {
    await startAll([...Object.values(drill.runners), drill.scorer]);
    options.log(`services ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const health = probeHealth(drill);
    const submitting = submitAll(drill, plan);
    await injectFaults(drill, plan.faults);
    await submitting;
    const settled = await untilSettled(drill, options.settleTimeoutMs);
    drill.stopping = true;
    await health;
    const records = await collect(drill, definition);
    const verdict = judgeChaos(records, CHAOS_TARGETS.length);
    if (!settled)
      verdict.violations.unshift(`not settled within ${options.settleTimeoutMs / 1000} s`);
    return {
      plan,
      verdict,
      wallMs: Date.now() - started,
      logs: () => serviceLogs(drill),
    };
  } finally {
    drill.stopping = true;
    await tearDown(drill);
  }
}

/** Starts the slots together; the first failure, once every start has ended (none left unheard). */
async function startAll(slots: ServiceSlot[]): Promise<void> {
  const outcomes = await Promise.allSettled(slots.map((slot) => slot.start()));
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
}

async function setUp(options: ChaosOptions): Promise<Drill> {
  const url = new URL(env().REDIS_URL);
  if (!['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
    throw new Error(`the chaos drill deletes Redis keys: REDIS_URL must be this machine's`);
  const prefix = `chaos-${options.seed}-${randomBytes(3).toString('hex')}`;
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-chaos-'));
  // The sandbox reaches the judgings' folders below it as another user.
  await chmod(tmp, 0o755);
  const bin = findPostgresBin();
  if (!bin) throw new Error('the chaos drill needs PostgreSQL’s server binaries (initdb, pg_ctl)');
  const postgres = await startPrivatePostgres({
    bin,
    dataDir: tmp,
    env: process.env,
    log: (line) => options.log(`postgres: ${line}`),
    throwaway: true,
  });
  await applyMigrations({ connectionString: postgres.url });
  const db = createDbClient(postgres.url);
  const { manifest } = await loadChallenge('wordcount');
  await upsertChallengeVersion(db, manifest as Manifest);
  await defineBenchmarkOnce(db, 'wordcount', CONTEST);
  const redis = createWorkerConnection({ onError: () => undefined });
  const queues = createQueueSet({ connection: redis, prefix });
  const drill: Drill = {
    options,
    prefix,
    tmp,
    postgres,
    databaseUrl: postgres.url,
    db,
    redis,
    queues,
    runners: {
      'linux-intel': runnerSlot('linux-intel', prefix, tmp, options.echo),
      'windows-amd': runnerSlot('windows-amd', prefix, tmp, options.echo),
    },
    scorer: scorerSlot(
      'scorer',
      prefix,
      postgres.url,
      {
        PERFJUDGE_BENCHMARK_SIZE: '1MiB',
        [SEED_ENV]: CONTEST.seed,
      },
      options.echo,
    ),
    // A second host's scorer, started by hand with the manifest's size and a seed of its own.
    secondScorer: scorerSlot(
      'second-scorer',
      prefix,
      postgres.url,
      {
        PERFJUDGE_BENCHMARK_SIZE: '256MiB',
        PERFJUDGE_INPUT_SIZE: '256MiB',
        [SEED_ENV]: 'a-seed-only-the-second-host-has',
      },
      options.echo,
    ),
    faults: [],
    health: [],
    submitted: [],
    stopping: false,
  };
  return drill;
}

/** The environment of a service: this machine's Redis, the drill's prefix, nothing else of ours. */
function serviceEnv(prefix: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PERFJUDGE_') && k !== 'DATABASE_URL',
    ),
  );
  return {
    ...inherited,
    REDIS_URL: env().REDIS_URL,
    PERFJUDGE_QUEUE_PREFIX: prefix,
    PERFJUDGE_DATA_DIR: TEST_DATA_DIR,
    ...extra,
  };
}

function runnerSlot(
  target: ChaosTarget,
  prefix: string,
  tmp: string,
  echo: ChaosOptions['echo'],
): ServiceSlot {
  return new ServiceSlot({
    echo,
    name: `runner-${target}`,
    args: [
      'runner',
      '--target',
      target,
      '--id',
      `chaos-${target}`,
      // windows-amd is emulated (and so labelled development) on its own on this Linux host.
      ...(target === 'linux-intel' ? ['--dev-mode'] : []),
      '--no-host-report',
      '--public-size',
      '256KiB',
      '--runs',
      '3',
      '--no-deterministic',
      // A host lock per target: timings are not under test, and the two judge side by side.
      '--host-lock',
      path.join(tmp, `${target}.lock`),
      '--work-root',
      path.join(tmp, `work-${target}`),
      // A killed runner's job is taken again within seconds, not the production minute.
      '--lock-duration',
      '4000',
      '--stalled-interval',
      '2000',
    ],
    env: serviceEnv(prefix, {}),
    ready: /serving judge-/,
  });
}

function scorerSlot(
  name: string,
  prefix: string,
  databaseUrl: string,
  extra: Record<string, string>,
  echo: ChaosOptions['echo'],
): ServiceSlot {
  return new ServiceSlot({
    echo,
    name,
    args: [
      'scorer',
      '--name',
      name,
      '--reconcile-every',
      '2',
      '--reconcile-older-than',
      '2',
      '--lock-ms',
      '3000',
      '--stalled-interval-ms',
      '2000',
    ],
    env: serviceEnv(prefix, { DATABASE_URL: databaseUrl, ...extra }),
    ready: /scorer ready/,
  });
}

/** Asks the health logic every HEALTH_EVERY_MS with clients of its own, as the web app would. */
async function probeHealth(drill: Drill): Promise<void> {
  const db = createDbClient(drill.databaseUrl);
  const redis = new Redis(env().REDIS_URL, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
  redis.on('error', () => undefined);
  try {
    while (!drill.stopping) {
      const at = Date.now();
      const report = await Promise.race([
        checkHealth({ db: () => db, redis, prefix: drill.prefix, log: () => undefined }),
        sleep(HEALTH_PATIENCE_MS).then(() => null),
      ]);
      const ms = Date.now() - at;
      drill.health.push({ at, ms, answered: report !== null, ok: report?.ok ?? false });
      await sleep(HEALTH_EVERY_MS);
    }
  } finally {
    redis.disconnect();
    await db.$disconnect();
  }
}

/** Each planned submission at its moment, by a contestant of its own; retried while the database is down. */
async function submitAll(drill: Drill, plan: ChaosPlan): Promise<void> {
  const start = Date.now();
  const submissions = plan.submissions.map(async ({ patch, atMs }, i) => {
    await sleep(Math.max(0, start + atMs - Date.now()));
    const patchText = readFileSync(
      path.join(REPO_ROOT, 'challenges/wordcount/submissions', `${patch}.patch`),
      'utf8',
    );
    const deadline = Date.now() + 60_000;
    // The account is made once and kept when only the submission failed; a retried creation
    // (its answer lost to the restart) gets a new address from makeUser, never a duplicate one.
    let userId: string | undefined;
    for (;;) {
      try {
        userId ??= await makeUser(drill.db, `chaos${i}`);
        const submitted = await submitPatch({
          db: drill.db,
          queues: drill.queues,
          userId,
          challengeSlug: 'wordcount',
          patchText,
        });
        if (!submitted.ok) throw new Error(`${patch} refused: ${submitted.message}`);
        drill.submitted.push(submitted.submissionId);
        drill.options.log(`submitted ${patch} (${submitted.submissionId})`);
        return;
      } catch (error) {
        // A contestant whose submission failed (the database restarting) sends it again.
        if (Date.now() > deadline) throw error;
        await sleep(500);
      }
    }
  });
  await Promise.all(submissions);
}

/** Judgings that ended (judged or cancelled); null while the database does not answer. */
async function endedJudgings(db: Db): Promise<number | null> {
  return db.judging.count({ where: { status: { in: ['DONE', 'CANCELLED'] } } }).catch(() => null);
}

async function injectFaults(drill: Drill, faults: PlannedFault[]): Promise<void> {
  for (const fault of faults) {
    const deadline = Date.now() + drill.options.settleTimeoutMs;
    while (((await endedJudgings(drill.db)) ?? -1) < fault.afterSettled) {
      if (Date.now() > deadline)
        throw new Error(
          `waited in vain for ${fault.afterSettled} judgings to end before ${fault.kind}\n${serviceLogs(drill)}`,
        );
      await sleep(300);
    }
    await sleep(fault.delayMs);
    const at = Date.now();
    const detail = await inject(drill, fault);
    drill.faults.push({
      kind: fault.kind,
      ...(fault.target ? { target: fault.target } : {}),
      at,
      until: Date.now(),
      detail,
    });
    drill.options.log(`fault ${fault.kind}: ${detail}`);
  }
}

async function inject(drill: Drill, fault: PlannedFault): Promise<string> {
  switch (fault.kind) {
    case 'kill-runner': {
      const slot = drill.runners[fault.target ?? 'linux-intel'];
      await slot.kill();
      await sleep(fault.downMs);
      await slot.start();
      return `${slot.name} killed (-9), started again after ${fault.downMs} ms`;
    }
    case 'kill-scorer':
      await drill.scorer.kill();
      await sleep(fault.downMs);
      await drill.scorer.start();
      return `scorer killed (-9), started again after ${fault.downMs} ms`;
    case 'second-scorer': {
      await drill.secondScorer.start();
      // It says so once it has read the database's definition, which its start-up does not await:
      // wait for that (bounded), so a drill that settles right after this fault still hears it.
      const deadline = Date.now() + SECOND_SCORER_WARNING_MS;
      while (!saysItDiffers(drill.secondScorer) && Date.now() < deadline) await sleep(200);
      return 'a second scorer started with a 256 MiB benchmark size and another seed';
    }
    case 'redis-flush': {
      const keys = await flushKeys(drill.redis, `${drill.prefix}:*`);
      return `Redis lost the drill's ${keys} keys at once`;
    }
    case 'postgres-restart': {
      const { port } = drill.postgres;
      // SIGQUIT: PostgreSQL's immediate shutdown, a crash as far as clients and recovery go.
      await drill.postgres.child.stop(5_000, 'SIGQUIT');
      await sleep(fault.downMs);
      drill.postgres = await startPrivatePostgres({
        bin: findPostgresBin()!,
        dataDir: drill.tmp,
        env: process.env,
        log: (line) => drill.options.log(`postgres: ${line}`),
        port,
        throwaway: true,
      });
      return `PostgreSQL crashed (immediate shutdown), back after ${fault.downMs} ms`;
    }
  }
}

/** Waits until every planned submission is stored and settled, and every judging ended. */
async function untilSettled(drill: Drill, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const planned = drill.options.submissions;
  while (Date.now() < deadline) {
    const open = await drill.db.submission
      .count({ where: { status: { in: ['QUEUED', 'JUDGING'] } } })
      .catch(() => null);
    const judgings = await drill.db.judging
      .count({ where: { status: { notIn: ['DONE', 'CANCELLED'] } } })
      .catch(() => null);
    if (open === 0 && judgings === 0 && drill.submitted.length === planned) return true;
    await sleep(500);
  }
  return false;
}

function timedLines(slots: ServiceSlot[]): TimedLine[] {
  return slots
    .flatMap((slot) =>
      slot.lines.map((l) => ({ at: l.at, source: `${slot.name}#${l.incarnation}`, line: l.line })),
    )
    .sort((a, b) => a.at - b.at);
}

async function collect(drill: Drill, definition: JobBenchmark): Promise<ChaosRecords> {
  const { db } = drill;
  const [submissions, judgings, end] = await Promise.all([
    db.submission.findMany({ select: { id: true, status: true, verdict: true } }),
    db.judging.findMany({
      select: {
        id: true,
        submissionId: true,
        status: true,
        verdict: true,
        message: true,
        result: true,
        target: { select: { name: true } },
        _count: { select: { runs: true } },
      },
    }),
    getContestBenchmark(db, 'wordcount'),
  ]);
  const runners = Object.values(drill.runners);
  const killed = new Map<string, number>();
  for (const slot of runners)
    for (const [incarnation, at] of slot.killedAt) killed.set(`${slot.name}#${incarnation}`, at);
  return {
    definition: { start: definition, end },
    submissions,
    judgings: judgings.map((j) => ({
      id: j.id,
      submissionId: j.submissionId,
      target: j.target.name,
      status: j.status,
      verdict: j.verdict,
      message: j.message,
      result: judgingResultSchema.safeParse(j.result).data ?? null,
      runRows: j._count.runs,
    })),
    runnerLines: timedLines(runners),
    killed,
    scorerLines: timedLines([drill.scorer, drill.secondScorer]),
    faults: drill.faults,
    health: drill.health,
    healthGraceMs: HEALTH_GRACE_MS,
    secondScorerWarned: drill.secondScorer.lines.length ? saysItDiffers(drill.secondScorer) : null,
  };
}

/** How long the second-scorer fault waits for that scorer's warning before the drill goes on. */
const SECOND_SCORER_WARNING_MS = 30_000;

/** Whether a scorer said its environment asks for another benchmark definition than the database's. */
function saysItDiffers(slot: ServiceSlot): boolean {
  return slot.lines.some((l) =>
    /environment differs from the contest's benchmark definition/.test(l.line),
  );
}

function allSlots(drill: Drill): ServiceSlot[] {
  return [...Object.values(drill.runners), drill.scorer, drill.secondScorer];
}

function serviceLogs(drill: Drill): string {
  return allSlots(drill)
    .map((slot) => slot.tail(60))
    .join('\n---\n');
}

/** Stops and removes everything the drill started; a step that fails is said, not thrown. */
async function tearDown(drill: Drill): Promise<void> {
  const step = async (what: string, work: () => Promise<unknown>) => {
    await work().catch((error: Error) => drill.options.log(`clean-up: ${what}: ${error.message}`));
  };
  await Promise.all(allSlots(drill).map((slot) => slot.stop(15_000)));
  await step('queues', () => drill.queues.close());
  await step('redis keys', () => deleteKeys(drill.redis, `${drill.prefix}:*`));
  drill.redis.disconnect();
  await step('database client', () => drill.db.$disconnect());
  await step('postgres', () => drill.postgres.stop());
  // A runner killed mid-judging leaves its scratch folder, with a tmpfs on it when run as root.
  for (const target of CHAOS_TARGETS)
    await step('scratch', () => sweepStaleScratch(path.join(drill.tmp, `work-${target}`)));
  // The runners' outboxes of this prefix (under the shared test data dir), and the rest.
  for (const target of CHAOS_TARGETS)
    await step('outbox', () =>
      rm(path.join(TEST_DATA_DIR, 'outbox', `${drill.prefix}.${target}`), {
        recursive: true,
        force: true,
      }),
    );
  await step('folder', () => rm(drill.tmp, { recursive: true, force: true, maxRetries: 5 }));
}
