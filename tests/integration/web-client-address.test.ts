// The sign-in and sign-up limits against a real running web server (scripts/web-server.mjs on a
// production build), with requests sent from several loopback addresses (127.0.0.x) and forged
// forwarding headers: a client's X-Forwarded-For never changes whose attempt it is; a trusted
// proxy's does; one account guessed at from many addresses is stopped too, while its owner's
// address still gets in; accounts per address and per hour are capped.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_PER_ACCOUNT, SIGN_IN_PER_ADDRESS } from '../../lib/auth/auth-limits';
import { env, REPO_ROOT } from '../../lib/config/env';
import { createUser } from '../../lib/db/create-user';
import { freePort } from '../../lib/net/free-port';
import { CLIENT_ADDRESS_HEADER } from '../../lib/net/client-address';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { registerChallenge } from '../../dev/db-fixtures';
import { deleteKeys } from '../helpers/queue';

const DIST_DIR = '.next-security';
const PREFIX = `test-client-address-${randomBytes(4).toString('hex')}`;
/** The one address the server trusts as a reverse proxy. */
const PROXY = '127.0.0.9';
const SIGNUPS_PER_ADDRESS = 2;
const SIGNUPS_PER_HOUR = 5;
const PASSWORD = 'a long enough password';

let database: TestDatabase;
let server: ChildProcess | undefined;
let port = 0;
let serverLog = '';
const publicUrl = () => `http://127.0.0.1:${port}`;

interface Answer {
  status: number;
  body: string;
  retryAfter: number | null;
}

/** POST to the server from the loopback address `from`, with whatever headers a client makes up. */
function post(
  route: string,
  body: unknown,
  from: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: route,
        method: 'POST',
        localAddress: from,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          origin: publicUrl(),
          ...headers,
        },
      },
      (response) => {
        let data = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (data += chunk));
        response.on('end', () => {
          const retry = response.headers['retry-after'] ?? response.headers['x-retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            body: data,
            retryAfter: retry === undefined ? null : Number(retry),
          });
        });
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

const randomIp = () =>
  `${1 + (randomBytes(1)[0]! % 220)}.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 250)}`;

/** Every header a client could use to claim another address, each with a fresh random one. */
function forgedHeaders(): Record<string, string> {
  return {
    'x-forwarded-for': `${randomIp()}, ${randomIp()}`,
    'x-real-ip': randomIp(),
    [CLIENT_ADDRESS_HEADER]: randomIp(),
    forwarded: `for=${randomIp()}`,
  };
}

const signIn = (email: string, password: string, from: string, headers = forgedHeaders()) =>
  post('/api/auth/sign-in/email', { email, password }, from, headers);

const signUp = (email: string, from: string, headers = forgedHeaders()) =>
  post('/api/auth/sign-up/email', { email, password: PASSWORD, name: 'Someone' }, from, headers);

/**
 * The newest modification time of what `next build` compiles. (Not scripts/start.ts's own copy:
 * importing that module would resolve to start.mjs, which starts the whole platform.)
 */
function newestSource(): number {
  let newest = 0;
  const visit = (p: string) => {
    const s = statSync(p, { throwIfNoEntry: false });
    if (!s) return;
    if (!s.isDirectory()) newest = Math.max(newest, s.mtimeMs);
    else if (!/(node_modules|generated)$/.test(p))
      for (const entry of readdirSync(p)) visit(path.join(p, entry));
  };
  for (const p of ['app', 'lib', 'contracts', 'public', 'next.config.ts', 'package-lock.json'])
    visit(path.join(REPO_ROOT, p));
  return newest;
}

/** `next build` into this file's folder unless it is newer than every source. */
function ensureBuild(): void {
  const buildId = path.join(REPO_ROOT, DIST_DIR, 'BUILD_ID');
  if (existsSync(buildId) && statSync(buildId).mtimeMs > newestSource()) return;
  const built = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'node_modules/next/dist/bin/next'), 'build'],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, PERFJUDGE_NEXT_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: '1' },
      encoding: 'utf8',
      timeout: 15 * 60_000,
    },
  );
  if (built.status !== 0) throw new Error(`next build failed:\n${built.stdout}\n${built.stderr}`);
}

beforeAll(async () => {
  ensureBuild();
  database = await createTestDatabase();
  await registerChallenge(database.db);
  port = await freePort();
  server = spawn(
    process.execPath,
    ['scripts/web-server.mjs', '--port', String(port), '--hostname', '127.0.0.1'],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PERFJUDGE_NEXT_DIST_DIR: DIST_DIR,
        NEXT_TELEMETRY_DISABLED: '1',
        DATABASE_URL: database.url,
        PERFJUDGE_QUEUE_PREFIX: PREFIX,
        PERFJUDGE_PUBLIC_URL: `http://127.0.0.1:${port}`,
        PERFJUDGE_AUTH_SECRET: randomBytes(32).toString('base64url'),
        PERFJUDGE_TRUSTED_PROXIES: PROXY,
        PERFJUDGE_SIGNUPS_PER_ADDRESS_PER_DAY: String(SIGNUPS_PER_ADDRESS),
        PERFJUDGE_SIGNUPS_PER_HOUR: String(SIGNUPS_PER_HOUR),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no Ready line:\n${serverLog}`)), 120_000);
    const onData = (chunk: Buffer) => {
      serverLog += chunk.toString('utf8');
      if (/Ready in/.test(serverLog)) {
        clearTimeout(timer);
        resolve();
      }
    };
    server!.stdout!.on('data', onData);
    server!.stderr!.on('data', onData);
    server!.once('exit', (code) => reject(new Error(`the server exited (${code}):\n${serverLog}`)));
  });
}, 20 * 60_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const gone = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    const stopped = await Promise.race([gone.then(() => true), sleep(20_000).then(() => false)]);
    if (!stopped) server.kill('SIGKILL');
    expect(stopped, 'the web server stops on SIGTERM').toBe(true);
  }
  const redis = new Redis(env().REDIS_URL, { maxRetriesPerRequest: null });
  await deleteKeys(redis, `${PREFIX}:*`);
  await redis.quit();
  await database?.drop();
});

async function account(name: string): Promise<string> {
  const email = `${name}-${randomBytes(3).toString('hex')}@example.test`;
  await createUser(database.db, { email, name, password: PASSWORD });
  return email;
}

describe('sign-in', () => {
  it('counts every attempt from one connection address, whatever forwarding headers it forges', async () => {
    const email = await account('organizer');
    const answers: Answer[] = [];
    for (let i = 0; i < 12; i++) answers.push(await signIn(email, 'wrong password!', '127.0.0.2'));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, SIGN_IN_PER_ADDRESS.max)).toEqual(
      Array(SIGN_IN_PER_ADDRESS.max).fill(401),
    );
    expect(statuses.slice(SIGN_IN_PER_ADDRESS.max)).toEqual(
      Array(12 - SIGN_IN_PER_ADDRESS.max).fill(429),
    );
    const refused = answers.at(-1)!;
    expect(refused.body).toMatch(/from your address/);
    expect(refused.retryAfter).toBeGreaterThan(0);
    expect(refused.retryAfter).toBeLessThanOrEqual(SIGN_IN_PER_ADDRESS.window);
    // Another address is not held back by the first one's attempts.
    expect((await signIn(email, PASSWORD, '127.0.0.3')).status).toBe(200);
  });

  it("never holds back an account's owner at an address they signed in from before", async () => {
    const email = await account('regular');
    for (let i = 0; i < 3 * SIGN_IN_PER_ADDRESS.max; i++)
      expect((await signIn(email, PASSWORD, '127.0.0.5')).status).toBe(200);
    // A guess at another account from that address still counts.
    const other = await account('neighbour');
    const statuses: number[] = [];
    for (let i = 0; i <= SIGN_IN_PER_ADDRESS.max; i++)
      statuses.push((await signIn(other, 'wrong password!', '127.0.0.5')).status);
    expect(statuses.at(-1)).toBe(429);
  });

  it('believes X-Forwarded-For from the trusted proxy only, up to the first hop it did not add', async () => {
    const email = await account('behind-proxy');
    // Through the proxy, each client is its own: five clients, five attempts each, none refused.
    for (let client = 0; client < 3; client++) {
      const ip = randomIp();
      for (let i = 0; i < SIGN_IN_PER_ADDRESS.max; i++) {
        const answer = await signIn(email, 'wrong password!', PROXY, {
          // The client forged the left part; the proxy appended what it saw.
          'x-forwarded-for': `${randomIp()}, ${ip}`,
        });
        expect(answer.status).toBe(401);
      }
      // The same client once more: its own limit, not the proxy's.
      const again = await signIn(email, 'wrong password!', PROXY, {
        'x-forwarded-for': `${randomIp()}, ${ip}`,
      });
      expect(again.status).toBe(429);
    }
  });

  it("stops a slow guess at one account from many addresses, but lets the owner's address in", async () => {
    const email = await account('target');
    // The owner signs in once from their usual address (the account's first attempt).
    expect((await signIn(email, PASSWORD, '127.0.0.4')).status).toBe(200);
    const statuses: number[] = [];
    let last: Answer | undefined;
    // One attempt per address, so no address limit is reached: the rest of the account's allowance.
    for (let i = 1; i <= SIGN_IN_PER_ACCOUNT.max; i++) {
      last = await signIn(email, 'wrong password!', `127.0.1.${10 + i}`);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(last!.body).toMatch(/for this account/);
    // Bounded: the lockout ends within the account's window.
    expect(last!.retryAfter).toBeLessThanOrEqual(SIGN_IN_PER_ACCOUNT.window);
    // Even the right password from a new address waits...
    expect((await signIn(email, PASSWORD, '127.0.1.200')).status).toBe(429);
    // ...but the owner's known address is not locked out.
    expect((await signIn(email, PASSWORD, '127.0.0.4')).status).toBe(200);
  });
});

describe('sign-up', () => {
  it('caps the accounts one address creates, whatever it forges, and the accounts per hour', async () => {
    const from = (n: number) => `127.0.2.${n}`;
    const tag = randomBytes(3).toString('hex');
    const email = (n: number) => `new-${tag}-${n}@example.test`;
    let n = 0;
    // One address: SIGNUPS_PER_ADDRESS accounts, then refused.
    for (let i = 0; i < SIGNUPS_PER_ADDRESS; i++)
      expect((await signUp(email(++n), from(1))).status).toBe(200);
    const refused = await signUp(email(++n), from(1));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatch(/from your address/);
    // Other addresses until the platform's hourly allowance is used up.
    for (let made = SIGNUPS_PER_ADDRESS, a = 2; made < SIGNUPS_PER_HOUR; made++, a++)
      expect((await signUp(email(++n), from(a))).status).toBe(200);
    const full = await signUp(email(++n), from(50));
    expect(full.status).toBe(429);
    expect(full.body).toMatch(/in the last hour/);
    expect(await database.db.user.count({ where: { email: { startsWith: `new-${tag}-` } } })).toBe(
      SIGNUPS_PER_HOUR,
    );
  });
});
