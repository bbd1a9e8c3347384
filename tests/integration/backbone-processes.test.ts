// The backbone's commands as real processes against this machine's PostgreSQL and Redis: a scorer
// killed (SIGKILL) in the middle of recording a result and replaced, `perfjudge reconcile --once`,
// and `perfjudge submit` against a tiny local HTTP server standing in for the web app's
// POST /api/submissions (tests/e2e/ drive the real route). Judging is done by a FAKE runner in this file (a tiny
// worker returning a canned result that passes the contract).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeQueueName,
  judgingJobResultSchema,
  judgingJobSchema,
  judgingScoreJobId,
  TARGET_IDS,
  type TargetId,
} from '../../contracts';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import type { Db } from '../../lib/server/db/client';
import { createApiToken } from '../../lib/server/db/accounts/create-api-token';
import { verifyApiToken } from '../../lib/server/db/accounts/verify-api-token';
import { createQueueSet, type QueueSet } from '../../lib/server/queue/producer';
import { submitPatch } from '../../lib/server/submit/submit-patch';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeResult, makeUser, registerChallenge } from '../../dev/db-fixtures';

const SUBMISSIONS = path.join(REPO_ROOT, 'challenges/wordcount/submissions');
const PATCH = readFileSync(path.join(SUBMISSIONS, 'accepted/baseline-copy.patch'), 'utf8');
const REDIS_URL = env().REDIS_URL;
/** This file's own key prefix, deleted afterwards (never FLUSHALL: other tests share the server). */
const PREFIX = `test-procs-${randomBytes(4).toString('hex')}`;
const BIN = path.join(REPO_ROOT, 'bin/perfjudge.mjs');

let database: TestDatabase;
let db: Db;
let redis: Redis;
let queues: QueueSet;
const closers: (() => Promise<unknown>)[] = [];

async function deletePrefixKeys(prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

interface Cli {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function perfjudge(args: string[], extraEnv: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      REDIS_URL,
      PERFJUDGE_QUEUE_PREFIX: PREFIX,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  closers.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, output: () => out, exited };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  ms = 60_000,
  /** Shown when waiting fails (a process's output). */
  context: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${context()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A FAKE runner per target: validates the payload like the real one, answers a canned result. */
function fakeRunners(): void {
  for (const target of TARGET_IDS) {
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const worker = new Worker(
      judgeQueueName(target),
      async (job: Job) => {
        const data = judgingJobSchema.parse(job.data);
        return judgingJobResultSchema.parse({
          judgingId: data.judgingId,
          round: data.round,
          runnerId: `fake-${target}`,
          result: makeResult({
            slug: data.challenge.slug,
            version: data.challenge.version,
            target: target as TargetId,
            judgingId: data.judgingId,
            speedup: target === 'linux-intel' ? 2 : 3,
          }),
        });
      },
      { connection, prefix: PREFIX },
    );
    worker.on('error', () => {});
    closers.push(async () => {
      await worker.close();
      await connection.quit().catch(() => {});
    });
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await registerChallenge(db);
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  queues = createQueueSet({ connection: redis, prefix: PREFIX });
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

afterAll(async () => {
  await queues?.close();
  if (redis) {
    await deletePrefixKeys(PREFIX);
    await redis.quit();
  }
  await database?.drop();
});

describe('scorer process', () => {
  it('killed with SIGKILL while recording a result: a new scorer records it, exactly once', async () => {
    const userId = await makeUser(db);
    const result = await submitPatch({
      db,
      queues,
      userId,
      challengeSlug: 'wordcount',
      patchText: PATCH,
    });
    if (!result.ok) throw new Error(result.message);
    const { submissionId } = result;
    // One score parent per target: each runs as soon as its judging answered.
    const parentIds = result.judgings.map((j) => judgingScoreJobId(j.judgingId, j.round));
    const states = () => Promise.all(parentIds.map((id) => queues.scoreQueue().getJobState(id)));
    fakeRunners();
    await until('both judgings answered', async () =>
      (await states()).every((state) => state === 'waiting') ? true : null,
    );

    // Hold the submission's row lock, so the scorer's recording transaction is sure to be under way
    // (and waiting) when it is killed.
    const adminUrl = database.url.replace(/\?.*$/, '');
    const holder = new pg.Client({ connectionString: adminUrl });
    const watcher = new pg.Client({ connectionString: adminUrl });
    await Promise.all([holder.connect(), watcher.connect()]);
    closers.push(
      () => holder.end(),
      () => watcher.end(),
    );
    await holder.query('BEGIN');
    await holder.query(
      `SELECT id FROM "${database.schema}"."Submission" WHERE id = $1 FOR UPDATE`,
      [submissionId],
    );
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
      .rows[0]?.pid;

    const scorerArgs = [
      'scorer',
      '--reconcile-every',
      '0',
      '--no-claims',
      // The job's lock outlives a busy host's late renewal: at 2 s a host at load 15 let it lapse
      // while the scorer waited on the row lock, and the job went back to waiting before the kill.
      '--lock-ms',
      '6000',
      '--stalled-interval-ms',
      '1000',
    ];
    const first = perfjudge([...scorerArgs, '--name', 'scorer-a']);
    await until(
      'the first scorer to block on the row lock',
      async () => {
        // Another connection: inside the holder's transaction pg_stat_activity is a frozen snapshot.
        const { rows } = await watcher.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          [holderPid],
        );
        return (rows[0]?.n ?? 0) > 0;
      },
      60_000,
      first.output,
    );
    expect(await states()).toContain('active');
    first.child.kill('SIGKILL');
    await first.exited;
    await holder.query('COMMIT');
    // The killed scorer's transaction never committed.
    expect(await db.judging.count({ where: { submissionId, status: 'DONE' } })).toBe(0);

    const second = perfjudge([...scorerArgs, '--name', 'scorer-b']);
    await until('the second scorer to record the results', async () =>
      (await states()).every((state) => state === 'completed'),
    );
    const s = await db.submission.findUniqueOrThrow({
      where: { id: submissionId },
      select: { status: true, score: true, judgings: { select: { status: true } } },
    });
    expect(s.status).toBe('DONE');
    expect(s.score).toBeCloseTo(5, 9);
    expect(await db.run.count({ where: { judging: { submissionId } } })).toBe(16);
    for (const parentId of parentIds) {
      const job = await queues.scoreQueue().getJob(parentId);
      expect(job?.processedBy).toBe('scorer-b');
      expect(job?.returnvalue.judgings.map((j: { outcome: string }) => j.outcome)).toEqual([
        'recorded',
      ]);
    }

    // SIGTERM: a graceful stop, exit code 0.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toMatch(/scorer stopped/);
  });
});

describe('perfjudge reconcile', () => {
  it('--once re-queues what Redis lost and reports it as JSON', async () => {
    const userId = await makeUser(db);
    const result = await submitPatch({
      db,
      queues,
      userId,
      challengeSlug: 'wordcount',
      patchText: PATCH,
    });
    if (!result.ok) throw new Error(result.message);
    const parentIds = result.judgings.map((j) => judgingScoreJobId(j.judgingId, j.round));
    for (const id of parentIds) {
      await queues.scoreQueue().remove(id, { removeChildren: true });
      expect(await queues.scoreQueue().getJob(id)).toBeUndefined();
    }

    const run = perfjudge(['reconcile', '--once', '--older-than', '0', '--json']);
    expect(await run.exited).toBe(0);
    const report = JSON.parse(run.output().trim().split('\n').at(-1) ?? '{}');
    expect(report.requeued).toContain(result.submissionId);
    for (const id of parentIds) expect(await queues.scoreQueue().getJob(id)).toBeDefined();
  });
});

describe('perfjudge submit', () => {
  // A stand-in for the web app's POST /api/submissions: the same library calls the real route
  // makes (verifyApiToken, submitPatch), answering in its shape.
  let server: http.Server;
  let serverUrl: string;
  let token: string;
  let tmp: string;

  beforeAll(async () => {
    const userId = await makeUser(db);
    token = (await createApiToken(db, { userId, name: 'cli' })).token;
    tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-submit-'));
    server = http.createServer((req, res) => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        void (async () => {
          if (req.method !== 'POST' || req.url !== '/api/submissions')
            return reply(404, { error: { code: 'not-found', message: 'No such route' } });
          const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
          const caller = await verifyApiToken(db, bearer);
          if (!caller)
            return reply(401, { error: { code: 'unauthorized', message: 'Invalid API token' } });
          const body = JSON.parse(raw) as { challenge: string; patch: string };
          const result = await submitPatch({
            db,
            queues,
            userId: caller.userId,
            challengeSlug: body.challenge,
            patchText: body.patch,
          });
          if (!result.ok)
            return reply(422, {
              error: { code: 'rejected', reason: result.reason, message: result.message },
            });
          reply(201, { submissionId: result.submissionId, status: 'QUEUED' });
        })().catch((error: Error) => reply(500, { error: { message: error.message } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('sends the patch with the token; the submission is stored and queued; exit 0', async () => {
    const file = path.join(tmp, 'mine.patch');
    await writeFile(file, PATCH);
    const run = perfjudge(['submit', '--server', serverUrl, '--token', token, file]);
    expect(await run.exited).toBe(0);
    const id = /Submitted: (\S+)/.exec(run.output())?.[1];
    expect(id).toBeDefined();
    const stored = await db.submission.findUniqueOrThrow({
      where: { id: id as string },
      select: { patchText: true, status: true },
    });
    expect(stored).toEqual({ patchText: PATCH, status: 'QUEUED' });
    const judgings = await db.judging.findMany({ where: { submissionId: id as string } });
    expect(judgings).toHaveLength(2);
    for (const j of judgings)
      expect(await queues.scoreQueue().getJob(judgingScoreJobId(j.id, 0))).toBeDefined();
  });

  it('a rejected patch: exit 1 with the reason', async () => {
    const run = perfjudge([
      'submit',
      '--server',
      serverUrl,
      '--token',
      token,
      path.join(SUBMISSIONS, 'rejected/touches-main-cpp.patch'),
    ]);
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/rejected \(protected-file\).*main\.cpp/);
  });

  it('a bad token: exit 2, saying the token was refused', async () => {
    const file = path.join(tmp, 'mine.patch');
    await writeFile(file, PATCH);
    const run = perfjudge(['submit', '--server', serverUrl, '--token', 'pj_nope', file]);
    expect(await run.exited).toBe(2);
    expect(run.output()).toMatch(/refused the token \(401\)/);
  });

  it('a server that does not answer: exit 2, saying it cannot be reached', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const file = path.join(tmp, 'mine.patch');
    await writeFile(file, PATCH);
    const run = perfjudge([
      'submit',
      '--server',
      `http://127.0.0.1:${port}`,
      '--token',
      token,
      file,
    ]);
    expect(await run.exited).toBe(2);
    expect(run.output()).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it('bad usage: no token, a missing file', async () => {
    const noToken = perfjudge(['submit', '--server', serverUrl, path.join(tmp, 'mine.patch')]);
    expect(await noToken.exited).toBe(2);
    expect(noToken.output()).toMatch(/API token is needed/);
    const missing = perfjudge([
      'submit',
      '--server',
      serverUrl,
      '--token',
      token,
      path.join(tmp, 'nope.patch'),
    ]);
    expect(await missing.exited).toBe(2);
    expect(missing.output()).toMatch(/cannot read/);
  });
});
