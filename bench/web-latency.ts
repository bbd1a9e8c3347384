// Server latency of the web app under load: a private schema seeded with 1,000 contestants and
// 20,000 judged submissions (bench/seed-web.ts), the app built and started in production mode
// (`next build` into its own folder, then the production server scripts/web-server.mjs — Next
// behind the leaderboard cache, as `npm start` runs it — on a free port), then autocannon with 50
// concurrent connections on the leaderboard page, a signed-in author's submission page (settled:
// the server's response cache keeps it for its viewer while its rows are unchanged), an organizer
// opening a different submission's page with every request (each one a render: the cache's miss
// path), and the CSV and Markdown exports, each request with the Accept-Encoding a browser sends. Prints p50/p95/p99 from every
// response's time, throughput and response sizes (as the page, and on the wire), and the
// leaderboard's freshness: how long after a score is written (by the scorer's own
// refreshLeaderboardEntry) the page first shows it, under the load and after a quiet spell. The load
// generator runs on the same machine as the server and PostgreSQL, so the figures include its cost.
//   npm run bench -- web-latency [--duration 10] [--connections 50] [--contestants 1000]
//                                [--submissions 20000] [--no-build]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { REPO_ROOT } from '../lib/core/config/env';
import { quantileOfSorted, sorted } from '../lib/core/stats';
import type { Db } from '../lib/server/db/client';
import { refreshLeaderboardEntry } from '../lib/server/db/leaderboard/refresh-leaderboard-entry';
import { formatScore } from '../lib/server/web/format';
import { CACHE_STATUS_HEADER } from '../lib/server/web/response-cache';
import { createTestDatabase } from '../dev/database';
import { seedWeb } from './seed-web';
import { freePort } from '../lib/core/net/free-port';

/** Its own build folder (gitignored .next-*), so it never shares .next/ with a developer's server. */
const DIST_DIR = '.next-bench-web';
const NEXT_BIN = path.join(REPO_ROOT, 'node_modules/next/dist/bin/next');
const WEB_SERVER = path.join(REPO_ROOT, 'scripts/web-server.mjs');

interface Options {
  duration: number;
  connections: number;
  contestants: number;
  submissions: number;
  build: boolean;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    duration: 10,
    connections: 50,
    contestants: 1000,
    submissions: 20_000,
    build: true,
  };
  const numeric = { '--duration': 'duration', '--connections': 'connections' } as const;
  const counts = { '--contestants': 'contestants', '--submissions': 'submissions' } as const;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i] ?? '';
    if (flag === '--no-build') {
      options.build = false;
      continue;
    }
    const key =
      flag in numeric
        ? numeric[flag as keyof typeof numeric]
        : flag in counts
          ? counts[flag as keyof typeof counts]
          : undefined;
    if (!key)
      throw new Error(
        `unknown option ${flag} (--duration, --connections, --contestants, --submissions, --no-build)`,
      );
    const value = Number(args[++i]);
    if (!Number.isInteger(value) || value < 1 || value > 1_000_000)
      throw new Error(`${flag}: "${args[i]}" is not a whole number from 1 to 1,000,000`);
    options[key] = value;
  }
  return options;
}

/** Minimal typing of the autocannon API used here (the package ships none). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  throughput: { average: number; total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonInstance {
  on(
    event: 'response',
    listener: (client: unknown, status: number, bytes: number, ms: number) => void,
  ): void;
}
type Autocannon = (
  options: {
    url: string;
    connections: number;
    duration: number;
    headers?: Record<string, string>;
    requests?: { setupRequest: (request: { path: string }) => { path: string } }[];
  },
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function runNode(args: string[], env: NodeJS.ProcessEnv, ready?: RegExp) {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const done = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (ready?.test(output)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) =>
      code === 0 && !ready
        ? resolve()
        : reject(new Error(`${args.join(' ')} exited (${code}):\n${output.slice(-3000)}`)),
    );
  });
  return { child, done, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function signIn(base: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email, password }),
  });
  if (!response.ok) throw new Error(`sign-in: ${response.status} ${await response.text()}`);
  const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0]);
  if (!cookies.length) throw new Error('sign-in: no session cookie');
  return cookies.join('; ');
}

interface Measured {
  label: string;
  aloneMs: number;
  status: string;
  requests: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  bytes: number;
  /** Bytes a response took on the wire (compressed when the server compressed it). */
  wireBytes: number;
  cache: string;
  failures: number;
}

/** What every browser sends: the server may compress, and a visitor's page is that many bytes. */
const BROWSER_HEADERS = { 'accept-encoding': 'gzip, deflate, br' };

/**
 * `url`'s response times under load. With `otherPaths`, each request of the load asks for the next
 * of them instead (pages no one opened before: what the cache cannot help with).
 */
async function measure(
  label: string,
  url: string,
  options: Options,
  extraHeaders: Record<string, string> = {},
  otherPaths: string[] = [],
): Promise<Measured> {
  const headers = { ...BROWSER_HEADERS, ...extraHeaders };
  // Warm up: the first request renders (and, for ISR pages, fills the cache).
  const first = await fetch(url, { headers, redirect: 'manual' });
  const body = await first.arrayBuffer();
  const cache =
    first.headers.get(CACHE_STATUS_HEADER) ??
    first.headers.get('x-nextjs-cache') ??
    first.headers.get('cache-control') ??
    '';
  // One request alone (after the warm-up): the page's own cost, without queueing behind others.
  const t0 = performance.now();
  await (await fetch(url, { headers, redirect: 'manual' })).arrayBuffer();
  const aloneMs = performance.now() - t0;
  const times: number[] = [];
  let next = 0;
  const requests = otherPaths.length
    ? [
        {
          setupRequest: (r: { path: string }) => ({
            ...r,
            path: otherPaths[next++ % otherPaths.length]!,
          }),
        },
      ]
    : undefined;
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: options.connections,
        duration: options.duration,
        headers,
        ...(requests ? { requests } : {}),
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    );
    instance.on('response', (_client, _status, _bytes, ms) => times.push(ms));
  });
  // Requests still running when the time is up are not counted: none at all is reported, not thrown.
  const xs = sorted(times.length ? times : [Number.NaN]);
  return {
    aloneMs,
    label,
    status: String(first.status),
    requests: result.requests.total,
    perSecond: result.requests.average,
    p50: quantileOfSorted(xs, 0.5),
    p95: quantileOfSorted(xs, 0.95),
    p99: quantileOfSorted(xs, 0.99),
    bytes: body.byteLength,
    wireBytes: result.requests.total ? result.throughput.total / result.requests.total : 0,
    cache,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** Targets: p95 per page, and seconds from a recorded score to the page showing it. */
const TARGET_P95_MS: Record<string, number> = {
  'leaderboard page': 50,
  'submission page (signed in)': 300,
  'CSV export': 100,
  'Markdown export': 100,
};
const TARGET_FRESHNESS_MS = 5_000;

/**
 * Writes a new best score for one contestant as the scorer does (the submission's score, then its
 * leaderboard row in one transaction) and polls the page until it shows it: milliseconds from the
 * commit to the first response that has it.
 */
async function freshnessProbe(
  db: Db,
  board: string,
  submissionId: string,
  score: number,
): Promise<number> {
  const submission = await db.submission.findUniqueOrThrow({
    where: { id: submissionId },
    select: { challengeId: true, userId: true },
  });
  await db.$transaction(async (tx) => {
    await tx.submission.update({ where: { id: submissionId }, data: { score } });
    await refreshLeaderboardEntry(tx, submission);
  });
  const written = Date.now();
  const text = formatScore(score);
  for (;;) {
    const body = await (await fetch(board)).text();
    if (body.includes(text)) return Date.now() - written;
    if (Date.now() - written > 60_000) throw new Error(`freshness: ${text} not shown after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function table(rows: Measured[]): string {
  const head = [
    '',
    'status',
    'alone ms',
    'req/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'target',
    'requests',
    'failed',
    'bytes',
    'on wire',
  ];
  const lines = rows.map((r) => [
    r.label,
    r.status,
    r.aloneMs.toFixed(1),
    r.perSecond.toFixed(0),
    r.p50.toFixed(1),
    r.p95.toFixed(1),
    r.p99.toFixed(1),
    TARGET_P95_MS[r.label] === undefined
      ? ''
      : `${r.p95 <= (TARGET_P95_MS[r.label] ?? 0) ? '≤' : 'OVER'} ${TARGET_P95_MS[r.label]}`,
    String(r.requests),
    String(r.failures),
    r.bytes.toLocaleString('en-US'),
    Math.round(r.wireBytes).toLocaleString('en-US'),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  return [fmt(head), ...lines.map(fmt)].map((l) => `  ${l}`).join('\n');
}

type Seeded = Awaited<ReturnType<typeof seedWeb>>;
type Database = Awaited<ReturnType<typeof createTestDatabase>>;

export default async function webLatency(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const database = await createTestDatabase();
  let server: ChildProcess | undefined;
  let serverOutput = () => '';
  try {
    const seeded = await seed(database, options, log);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = serverEnv(database.url, base);
    await buildIfNeeded(options, env, log);
    const started = runNode(
      [WEB_SERVER, '--port', String(port), '--hostname', '127.0.0.1'],
      env,
      /Ready in/,
    );
    server = started.child;
    serverOutput = started.output;
    await started.done;

    const { rows, freshLoaded, freshQuiet } = await measurePages(
      database,
      seeded,
      base,
      options,
      log,
    );
    log(
      `web-latency: ${options.connections} connections, ${options.duration} s each, scripts/web-server.mjs (production), ${options.contestants} contestants, ${options.submissions} submissions`,
    );
    log(table(rows));
    for (const r of rows) log(`  ${r.label}: first response ${r.cache || 'no cache header'}`);
    const worst = Math.max(...freshLoaded, freshQuiet);
    log(
      `  freshness (score written → leaderboard shows it): under load ${freshLoaded.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')}; after an 8 s quiet spell ${(freshQuiet / 1000).toFixed(2)} s; worst ${(worst / 1000).toFixed(2)} s: ${worst <= TARGET_FRESHNESS_MS ? 'within' : 'OVER'} the ${TARGET_FRESHNESS_MS / 1000} s target`,
    );
  } catch (error) {
    log(`server output (last 4,000 characters):\n${serverOutput().slice(-4000)}`);
    throw error;
  } finally {
    if (server) await stop(server);
    await database.drop();
  }
}

async function seed(
  database: Database,
  options: Options,
  log: (line: string) => void,
): Promise<Seeded> {
  const t0 = Date.now();
  log(
    `web-latency: seeding ${options.contestants} contestants and ${options.submissions} judged submissions into ${database.schema}`,
  );
  const seeded = await seedWeb(
    database.db,
    { contestants: options.contestants, submissions: options.submissions },
    log,
  );
  log(
    `  ${seeded.leaderboardRows} leaderboard rows; results average ${(seeded.resultBytes / 1024).toFixed(1)} KiB of JSON; ${((Date.now() - t0) / 1000).toFixed(1)} s in all`,
  );
  // The server gets its own database connection; the benchmark's would only hold locks until
  // the freshness probes write (Prisma connects again on the first query).
  await database.db.$disconnect();
  return seeded;
}

/** The production server's environment: the private schema, a private queue prefix, its own build. */
function serverEnv(databaseUrl: string, base: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    PERFJUDGE_PUBLIC_URL: base,
    PERFJUDGE_NEXT_DIST_DIR: DIST_DIR,
    PERFJUDGE_QUEUE_PREFIX: `bench-web-${randomBytes(4).toString('hex')}`,
    PERFJUDGE_AUTH_SECRET: randomBytes(32).toString('hex'),
    NEXT_TELEMETRY_DISABLED: '1',
  };
}

async function buildIfNeeded(
  options: Options,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  if (!options.build && existsSync(path.join(REPO_ROOT, DIST_DIR, 'BUILD_ID'))) return;
  const t0 = Date.now();
  log(`  building the app into ${DIST_DIR}/ …`);
  await runNode([NEXT_BIN, 'build'], env).done;
  log(`  built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** Every page under load, and how soon a written score shows on the leaderboard. */
async function measurePages(
  database: Database,
  seeded: Seeded,
  base: string,
  options: Options,
  log: (line: string) => void,
): Promise<{ rows: Measured[]; freshLoaded: number[]; freshQuiet: number }> {
  const cookie = await signIn(base, seeded.authorEmail, seeded.authorPassword);
  const board = `${base}/challenges/${seeded.challengeSlug}/leaderboard`;
  const submissionUrl = `${base}/submissions/${seeded.authorSubmissionId}`;
  const rows: Measured[] = [];
  // Freshness under load: three scores written one after the other (a later write would hide an
  // earlier one) while autocannon loads the leaderboard.
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const probing = (async () => {
    const times: number[] = [];
    for (const i of [1, 2, 3]) {
      await sleep((options.duration * 1000) / 5);
      times.push(
        await freshnessProbe(database.db, board, seeded.authorSubmissionId, 90 + i / 1000),
      );
    }
    return times;
  })();
  rows.push(await measure('leaderboard page', board, options));
  const freshLoaded = await probing;
  // Freshness after a quiet spell longer than the cache's expiry: the case a stale-while-
  // revalidate cache got wrong (the first visitor after a pause saw an arbitrarily old page).
  await sleep(8_000);
  const freshQuiet = await freshnessProbe(database.db, board, seeded.authorSubmissionId, 95.5);
  const submission = await fetch(submissionUrl, { headers: { cookie }, redirect: 'manual' });
  await submission.arrayBuffer();
  if (submission.status === 200)
    rows.push(await measure('submission page (signed in)', submissionUrl, options, { cookie }));
  else
    log(
      `  submission page: ${submission.status} at ${submissionUrl} (not built yet?): not measured`,
    );
  // The same page type, but each request a submission no one opened yet (an organizer may open
  // any): every one a render, the cache's miss path. For comparison; no target.
  const organizer = await signIn(base, seeded.organizerEmail, seeded.authorPassword);
  const unopened = seeded.otherSubmissionIds.map((id) => `/submissions/${id}`);
  rows.push(
    await measure(
      'submission pages (organizer, each unopened)',
      `${base}${unopened[0]}`,
      options,
      { cookie: organizer },
      unopened.slice(1),
    ),
  );
  rows.push(await measure('CSV export', `${board}/export.csv`, options));
  rows.push(await measure('Markdown export', `${board}/export.md`, options));
  return { rows, freshLoaded, freshQuiet };
}
