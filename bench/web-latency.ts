// Server latency of the web app under load: a private schema seeded with 1,000 contestants and
// 20,000 judged submissions (bench/seed-web.ts), the app built and started in production mode
// (`next build` into its own folder, `next start` on a free port), then autocannon with 50
// concurrent connections on the leaderboard page, a signed-in author's submission page and the CSV
// export. Prints p50/p95/p99 from every response's time, throughput and response sizes. The load
// generator runs on the same machine as the server and PostgreSQL, so the figures include its cost.
//   npm run bench -- web-latency [--duration 10] [--connections 50] [--contestants 1000]
//                                [--submissions 20000] [--no-build]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { REPO_ROOT } from '../lib/config/env';
import { quantileOfSorted, sorted } from '../runner/stats';
import { createTestDatabase } from '../tests/helpers/database';
import { seedWeb } from './seed-web';
import { freePort } from '../lib/net/free-port';

/** Its own build folder (gitignored .next-*), so it never shares .next/ with a developer's server. */
const DIST_DIR = '.next-bench-web';
const NEXT_BIN = path.join(REPO_ROOT, 'node_modules/next/dist/bin/next');

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
  throughput: { average: number };
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
  },
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function runNext(args: string[], env: NodeJS.ProcessEnv, ready?: RegExp) {
  const child = spawn(process.execPath, [NEXT_BIN, ...args], {
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
        : reject(new Error(`next ${args[0]} exited (${code}):\n${output.slice(-3000)}`)),
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
  status: string;
  requests: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  bytes: number;
  cache: string;
  failures: number;
}

async function measure(
  label: string,
  url: string,
  options: Options,
  headers: Record<string, string> = {},
): Promise<Measured> {
  // Warm up: the first request renders (and, for ISR pages, fills the cache).
  const first = await fetch(url, { headers, redirect: 'manual' });
  const body = await first.arrayBuffer();
  const cache = first.headers.get('x-nextjs-cache') ?? first.headers.get('cache-control') ?? '';
  const times: number[] = [];
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const instance = autocannon(
      { url, connections: options.connections, duration: options.duration, headers },
      (error, r) => (error ? reject(error) : resolve(r)),
    );
    instance.on('response', (_client, _status, _bytes, ms) => times.push(ms));
  });
  const xs = sorted(times);
  return {
    label,
    status: String(first.status),
    requests: result.requests.total,
    perSecond: result.requests.average,
    p50: quantileOfSorted(xs, 0.5),
    p95: quantileOfSorted(xs, 0.95),
    p99: quantileOfSorted(xs, 0.99),
    bytes: body.byteLength,
    cache,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

function table(rows: Measured[]): string {
  const head = ['', 'status', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'requests', 'failed', 'bytes'];
  const lines = rows.map((r) => [
    r.label,
    r.status,
    r.perSecond.toFixed(0),
    r.p50.toFixed(1),
    r.p95.toFixed(1),
    r.p99.toFixed(1),
    String(r.requests),
    String(r.failures),
    r.bytes.toLocaleString('en-US'),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  return [fmt(head), ...lines.map(fmt)].map((l) => `  ${l}`).join('\n');
}

export default async function webLatency(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const database = await createTestDatabase();
  let server: ChildProcess | undefined;
  try {
    let t0 = Date.now();
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
    // The server gets its own database connection; the benchmark's would only hold locks.
    await database.db.$disconnect();

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      PERFJUDGE_PUBLIC_URL: base,
      PERFJUDGE_NEXT_DIST_DIR: DIST_DIR,
      PERFJUDGE_QUEUE_PREFIX: `bench-web-${randomBytes(4).toString('hex')}`,
      PERFJUDGE_AUTH_SECRET: randomBytes(32).toString('hex'),
      NEXT_TELEMETRY_DISABLED: '1',
    };
    if (options.build || !existsSync(path.join(REPO_ROOT, DIST_DIR, 'BUILD_ID'))) {
      t0 = Date.now();
      log(`  building the app into ${DIST_DIR}/ …`);
      await runNext(['build'], env).done;
      log(`  built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    const started = runNext(['start', '-p', String(port), '-H', '127.0.0.1'], env, /Ready in/);
    server = started.child;
    await started.done;

    const cookie = await signIn(base, seeded.authorEmail, seeded.authorPassword);
    const board = `${base}/challenges/${seeded.challengeSlug}/leaderboard`;
    const submissionUrl = `${base}/submissions/${seeded.authorSubmissionId}`;
    const rows: Measured[] = [];
    rows.push(await measure('leaderboard page', board, options));
    const submission = await fetch(submissionUrl, { headers: { cookie }, redirect: 'manual' });
    await submission.arrayBuffer();
    if (submission.status === 200)
      rows.push(await measure('submission page (signed in)', submissionUrl, options, { cookie }));
    else
      log(
        `  submission page: ${submission.status} at ${submissionUrl} (not built yet?): not measured`,
      );
    rows.push(await measure('CSV export', `${board}/export.csv`, options));
    rows.push(await measure('Markdown export', `${board}/export.md`, options));

    log(
      `web-latency: ${options.connections} connections, ${options.duration} s each, next start (production), ${options.contestants} contestants, ${options.submissions} submissions`,
    );
    log(table(rows));
    for (const r of rows) log(`  ${r.label}: first response ${r.cache || 'no cache header'}`);
    const lb = rows[0];
    if (lb)
      log(
        `  leaderboard p95 ${lb.p95.toFixed(1)} ms: ${lb.p95 <= 50 ? 'within' : 'OVER'} the 50 ms target`,
      );
  } finally {
    if (server) await stop(server);
    await database.drop();
  }
}
