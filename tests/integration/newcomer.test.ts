// The newcomer's path: a fresh clone of the committed HEAD in a temporary folder, `npm start` with
// nothing configured (no DATABASE_URL, no REDIS_URL: it starts its own PostgreSQL and Redis under
// the clone's .data/), the health endpoint reporting the database, Redis and the runners ready, a
// contestant signing up and submitting through the web API, the verdict and score arriving, then
// Ctrl-C (SIGINT to the process group, as a terminal sends it) stopping everything: no process of
// the clone left, its ports free.
//
// Trade-offs, to stay within a few minutes on two cores:
// - node_modules is hard-linked from this checkout (`cp -al`, same lock file) instead of a minute of
//   `npm ci` downloading; the lock file's time is set so the bootstrap sees the tree as current. The
//   rest of the bootstrap runs for real: system package check, Prisma client generation, the
//   production `next build` of the clone.
// - small inputs and few timed pairs (PERFJUDGE_INPUT_SIZE, PERFJUDGE_RUNS: development mode, as
//   the results say), and a private host lock so the judging does not queue behind other tests'.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, utimesSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/config/env';
import { freePort } from '../../lib/net/free-port';

const PATCH = readFileSync(
  path.join(REPO_ROOT, 'challenges/wordcount/submissions/accepted/fast-hash-table.patch'),
  'utf8',
);
const HAS_WINE = (() => {
  try {
    execFileSync('wine', ['--version'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
})();

let tmp: string;
let clone: string;
let port: number;
let start: ChildProcess | undefined;
let output = '';
let exited: Promise<number | null>;
const timings: Record<string, number> = {};

function portFree(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port: p, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Every process whose command line or working directory is inside the clone. */
function processesOfClone(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // Gone, or not ours to read.
      }
      if (cmdline.includes(clone) || cwd === clone || cwd.startsWith(`${clone}/`))
        found.push(`${pid}: ${cmdline}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (start && start.exitCode !== null)
      throw new Error(`npm start exited (${start.exitCode}) while waiting for ${what}:\n${output}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs / 1000} s. Output:\n${output.slice(-6000)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-newcomer-'));
  clone = path.join(tmp, 'perfjudge');
  // mkdtemp makes a 700 folder, which the sandbox user could not traverse (the first test checks
  // that start says so); the second uses it as a clone under /opt or /srv would be: 755.
  await chmod(tmp, 0o700);
  execFileSync('git', ['clone', '-q', REPO_ROOT, clone]);
  execFileSync('cp', [
    '-al',
    path.join(REPO_ROOT, 'node_modules'),
    path.join(clone, 'node_modules'),
  ]);
  const installed = statSync(path.join(clone, 'node_modules', '.package-lock.json')).mtime;
  const older = new Date(installed.getTime() - 1000);
  utimesSync(path.join(clone, 'package-lock.json'), older, older);
  port = await freePort();
}, 120_000);

afterAll(async () => {
  if (start && start.exitCode === null && start.pid) {
    try {
      process.kill(-start.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  // Anything of the clone's still alive (a failed run): ours to end, by pid.
  for (const line of processesOfClone()) {
    try {
      process.kill(Number(line.split(':')[0]), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  console.log(`newcomer timings (s): ${JSON.stringify(timings)}`);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The environment of a newcomer: nothing of ours (no database, Redis, data folder, test flags). */
function newcomerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !name.startsWith('PERFJUDGE_') &&
        !['DATABASE_URL', 'REDIS_URL', 'PORT', 'NODE_ENV', 'VITEST', 'TEST'].includes(name) &&
        !name.startsWith('VITEST_') &&
        !name.startsWith('npm_'),
    ),
  );
  return { ...inherited, ...extra };
}

it('refuses at once, naming the folder, when the sandbox user cannot reach the checkout', () => {
  // As root only: the runners then run untrusted code as uid 65534.
  if (process.getuid?.() !== 0) return;
  const t0 = Date.now();
  let failed: { status: number | null; output: string } | undefined;
  try {
    execFileSync('npm', ['start'], {
      cwd: clone,
      env: newcomerEnv({ PORT: String(port) }),
      stdio: 'pipe',
      timeout: 120_000,
    });
  } catch (error) {
    const e = error as { status: number | null; stdout: Buffer; stderr: Buffer };
    failed = { status: e.status, output: `${e.stdout}${e.stderr}` };
  }
  timings.refusal = (Date.now() - t0) / 1000;
  expect(failed?.status, failed?.output).toBe(1);
  expect(failed!.output).toContain(`${tmp} is not searchable`);
  expect(existsSync(path.join(clone, '.data', 'postgres')), 'nothing started').toBe(false);
}, 180_000);

it('a fresh clone starts with `npm start`, judges a submission end to end and stops cleanly', async () => {
  await chmod(tmp, 0o755);
  const t0 = Date.now();
  start = spawn('npm', ['start'], {
    cwd: clone,
    env: newcomerEnv({
      PORT: String(port),
      PERFJUDGE_INPUT_SIZE: '8MiB',
      PERFJUDGE_RUNS: '5',
      PERFJUDGE_HOST_LOCK: path.join(tmp, 'judging.lock'),
      PERFJUDGE_QUEUE_PREFIX: `newcomer-${process.pid}`,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: SIGINT to the group is what Ctrl-C in a terminal does.
    detached: true,
  });
  start.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  start.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const child = start;
  exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));

  // 1. Up: the health endpoint answers with the database, Redis and the runners.
  const base = `http://127.0.0.1:${port}`;
  const health = await until('the platform to be healthy with its runners', 420_000, async () => {
    const response = await fetch(`${base}/api/health`);
    const body = (await response.json()) as {
      ok: boolean;
      database: { ok: boolean };
      redis: { ok: boolean };
      runners: Record<string, number>;
    };
    const ready =
      response.status === 200 &&
      body.database.ok &&
      body.redis.ok &&
      body.runners['linux-intel']! >= 1 &&
      (!HAS_WINE || body.runners['windows-amd']! >= 1) &&
      output.includes('perfjudge is running');
    return ready ? body : undefined;
  });
  timings.startup = (Date.now() - t0) / 1000;
  expect(health.ok).toBe(true);
  // Its own stores under the clone's .data/, and the organizer's credentials printed.
  expect(existsSync(path.join(clone, '.data', 'postgres', 'PG_VERSION'))).toBe(true);
  expect(output).toMatch(/organizer: \S+@\S+/);
  expect(output).toMatch(/password: {2}\S{12,}/);
  expect(output).toContain('[runner linux-intel]');
  expect(output).toContain('[web]');
  expect(output).toContain('[scorer]');
  const pgPort = Number(readFileSync(path.join(clone, '.data', 'postgres.port'), 'utf8'));
  const redisPort = Number(readFileSync(path.join(clone, '.data', 'redis.port'), 'utf8'));
  expect(pgPort).not.toBe(5432);
  expect(redisPort).not.toBe(6379);

  // 2. A contestant signs up (Better Auth checks the Origin) and submits with the session.
  const publicUrl = `http://localhost:${port}`;
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: publicUrl },
    body: JSON.stringify({
      email: 'newcomer@example.test',
      password: 'a long enough password',
      name: 'Newcomer',
    }),
  });
  expect(signUp.status, await signUp.clone().text()).toBe(200);
  const cookie = signUp.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const submit = await fetch(`${base}/api/submissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: publicUrl, cookie },
    body: JSON.stringify({ challenge: 'wordcount', patch: PATCH }),
  });
  expect(submit.status, await submit.clone().text()).toBe(201);
  const { submissionId } = (await submit.json()) as { submissionId: string };
  const submittedAt = Date.now();

  // 3. Judged on every target this host serves and scored (read from the platform's database;
  //    the scorer writes it once every target is done).
  const database = new pg.Client({
    connectionString: `postgresql://postgres@127.0.0.1:${pgPort}/perfjudge`,
  });
  await database.connect();
  let row: { status: string; verdict: string | null; score: number | null };
  try {
    row = await until('the verdict', 360_000, async () => {
      const { rows } = await database.query<{
        status: string;
        verdict: string | null;
        score: number | null;
      }>(`SELECT status, verdict, score FROM "Submission" WHERE id = $1`, [submissionId]);
      const r = rows[0];
      return r && (r.status === 'DONE' || r.status === 'FAILED') ? r : undefined;
    });
  } finally {
    await database.end();
  }
  timings.judging = (Date.now() - submittedAt) / 1000;
  expect(row, output.slice(-4000)).toMatchObject({ status: 'DONE', verdict: 'ACCEPTED' });
  expect(row.score).toBeGreaterThan(0);

  // 4. Ctrl-C: everything stops, in order, and nothing of the clone is left running.
  const stopAt = Date.now();
  process.kill(-child.pid!, 'SIGINT');
  const code = await Promise.race([
    exited,
    new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000)),
  ]);
  timings.stop = (Date.now() - stopAt) / 1000;
  expect(code, output.slice(-3000)).not.toBe('timeout');
  expect(output).toContain('[start] stopped');
  // Leftover children may take a moment to be reaped after their group's leader exits.
  await until('the clone’s processes to end', 10_000, async () =>
    processesOfClone().length === 0 ? true : undefined,
  ).catch(() => undefined);
  expect(processesOfClone()).toEqual([]);
  for (const p of [port, pgPort, redisPort]) expect(await portFree(p), `port ${p}`).toBe(true);
  timings.total = (Date.now() - t0) / 1000;
}, 900_000);
