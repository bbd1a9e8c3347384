// The sign-in and sign-up limits against a real running web server (scripts/web-server.mjs on a
// production build), PostgreSQL and Redis, with requests sent from several loopback addresses
// (127.0.0.x) and forged forwarding headers: a client's X-Forwarded-For never changes whose
// attempt it is; a trusted proxy's does; a guessing run at one account is refused after the limit
// from any address, the owner's own included, while the owner's browser (its device cookie) still
// gets in and another account's cookie does nothing; the account's wait doubles up to its cap and a
// device cookie has its own allowance; a new password revokes device cookies and other sessions,
// while API tokens pass a lockout; the owner is told of the failures; an organizer signs in with a
// second factor (TOTP) when the platform requires it, and the console lists accounts under attack;
// accounts per address and per hour are capped.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BACKOFF_BASE_S,
  BACKOFF_CAP_S,
  backoffSeconds,
  FREE_FAILURES,
  SIGN_IN_PER_ADDRESS,
  SIGN_IN_PER_DEVICE,
} from '../../lib/server/auth/auth-limits';
import { DEVICE_COOKIE } from '../../lib/server/auth/device-cookie';
import { env, REPO_ROOT } from '../../lib/core/config/env';
import { createApiToken } from '../../lib/server/db/accounts/create-api-token';
import { createUser } from '../../lib/server/db/accounts/create-user';
import { UNDER_ATTACK_AFTER } from '../../lib/server/db/accounts/list-accounts-under-attack';
import { resetTwoFactor } from '../../lib/server/db/accounts/reset-two-factor';
import { freePort } from '../../lib/core/net/free-port';
import { CLIENT_ADDRESS_HEADER } from '../../lib/core/net/client-address';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { registerChallenge } from '../../dev/db-fixtures';
import { deleteKeys } from '../helpers/queue';
import { secretOfUri, totp } from '../helpers/totp';
import { ensureWebBuild, TEST_BUILD_DIR } from '../helpers/web-build';

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
  /** The cookies the answer set, by name. */
  cookies: Record<string, string>;
  location: string | undefined;
}

/** A Cookie header from the cookies answers set (later ones win). */
const cookieHeader = (...answers: Answer[]) =>
  Object.entries(Object.assign({}, ...answers.map((a) => a.cookies)) as Record<string, string>)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');

/** POST (or GET, without a body) to the server from the loopback address `from`. */
function post(
  route: string,
  body: unknown,
  from: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const text = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: route,
        method: body === undefined ? 'GET' : 'POST',
        localAddress: from,
        headers: {
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
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
          const cookies: Record<string, string> = {};
          for (const line of response.headers['set-cookie'] ?? []) {
            const [pair] = line.split(';');
            const at = pair!.indexOf('=');
            cookies[pair!.slice(0, at)] = pair!.slice(at + 1);
          }
          resolve({
            status: response.statusCode ?? 0,
            body: data,
            retryAfter: retry === undefined ? null : Number(retry),
            cookies,
            location: response.headers.location,
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

beforeAll(async () => {
  await ensureWebBuild();
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
        PERFJUDGE_NEXT_DIST_DIR: TEST_BUILD_DIR,
        NEXT_TELEMETRY_DISABLED: '1',
        DATABASE_URL: database.url,
        PERFJUDGE_QUEUE_PREFIX: PREFIX,
        PERFJUDGE_PUBLIC_URL: `http://127.0.0.1:${port}`,
        PERFJUDGE_AUTH_SECRET: randomBytes(32).toString('base64url'),
        PERFJUDGE_TRUSTED_PROXIES: PROXY,
        PERFJUDGE_SIGNUPS_PER_ADDRESS_PER_DAY: String(SIGNUPS_PER_ADDRESS),
        PERFJUDGE_SIGNUPS_PER_HOUR: String(SIGNUPS_PER_HOUR),
        PERFJUDGE_ORGANIZER_TWO_FACTOR: 'required',
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

async function account(name: string, role: 'CONTESTANT' | 'ORGANIZER' = 'CONTESTANT') {
  const email = `${name}-${randomBytes(3).toString('hex')}@example.test`;
  await createUser(database.db, { email, name, password: PASSWORD, role });
  return email;
}

/** The browser's cookies after signing in from `from`: its session and its device cookie. */
async function ownersBrowser(email: string, from: string): Promise<string> {
  const answer = await signIn(email, PASSWORD, from);
  expect(answer.status).toBe(200);
  expect(answer.cookies[DEVICE_COOKIE]).toBeTruthy();
  return cookieHeader(answer);
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
    // Another address is not held back by the first one's attempts at another account...
    expect((await signIn(await account('bystander'), PASSWORD, '127.0.0.3')).status).toBe(200);
    // ...but the guessed account waits, wherever the next attempt comes from.
    const elsewhere = await signIn(email, PASSWORD, '127.0.0.3');
    expect(elsewhere.status).toBe(429);
    expect(elsewhere.body).toMatch(/for this account/);
  });

  it('believes X-Forwarded-For from the trusted proxy only, up to the first hop it did not add', async () => {
    // Through the proxy, each client is its own: three clients, five attempts each, none refused
    // by the address limit (each at its own account, whose allowance is as large).
    for (let client = 0; client < 3; client++) {
      const email = await account(`behind-proxy-${client}`);
      const ip = randomIp();
      for (let i = 0; i < SIGN_IN_PER_ADDRESS.max; i++) {
        const answer = await signIn(email, 'wrong password!', PROXY, {
          // The client forged the left part; the proxy appended what it saw.
          'x-forwarded-for': `${randomIp()}, ${ip}`,
        });
        expect(answer.status).toBe(401);
      }
      // The same client once more, at a fresh account: its own limit, not the proxy's.
      const again = await signIn(await account('fresh'), 'wrong password!', PROXY, {
        'x-forwarded-for': `${randomIp()}, ${ip}`,
      });
      expect(again.status).toBe(429);
      expect(again.body).toMatch(/from your address/);
    }
  });

  it("refuses a guessing run from the owner's own address, lets the owner's browser in, and tells the owner", async () => {
    const email = await account('target');
    const owner = '127.0.0.4';
    const browser = await ownersBrowser(email, owner);
    // A stranger on the owner's address (a shared NAT), one guess at a time as the address limit
    // allows, and from other addresses: all count against the account.
    const statuses: number[] = [];
    let last: Answer | undefined;
    for (let i = 0; i <= FREE_FAILURES; i++) {
      last = await signIn(email, 'wrong password!', i % 2 === 0 ? owner : `127.0.1.${10 + i}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array(FREE_FAILURES).fill(401), 429]);
    expect(last!.body).toMatch(/for this account/);
    expect(last!.retryAfter).toBeGreaterThan(0);
    expect(last!.retryAfter).toBeLessThanOrEqual(BACKOFF_BASE_S);
    // The right password does not help a browser without the cookie, on the owner's address or not.
    expect((await signIn(email, PASSWORD, owner)).status).toBe(429);
    expect((await signIn(email, PASSWORD, '127.0.1.200')).status).toBe(429);
    // Another account's device cookie (stolen, or the attacker's own) does nothing here.
    const stolen = await ownersBrowser(await account('attacker'), '127.0.1.201');
    for (const password of [PASSWORD, 'wrong password!']) {
      const withStolen = await signIn(email, password, '127.0.1.202', { cookie: stolen });
      expect(withStolen.status).toBe(429);
      expect(withStolen.body).toMatch(/for this account/);
    }
    // The owner's address has used up its own allowance by now; the owner's browser is not held
    // back by either limit.
    expect((await signIn(await account('neighbour'), PASSWORD, owner)).status).toBe(429);
    // The owner's own browser gets in during the lockout, and is told what happened.
    const back = await signIn(email, PASSWORD, owner, { cookie: browser });
    expect(back.status).toBe(200);
    const report = (JSON.parse(back.body) as { signInReport?: { failedAttempts: number } })
      .signInReport;
    expect(report?.failedAttempts).toBe(FREE_FAILURES);
    expect(
      await database.db.auditLog.count({
        where: { action: 'auth.sign-in-failed', subjectId: (await userId(email))! },
      }),
    ).toBe(FREE_FAILURES);
  });

  it("makes the account's wait grow with each failure up to the cap, and holds a device cookie to its own allowance", async () => {
    const email = await account('backoff');
    const browser = await ownersBrowser(email, '127.0.4.1');
    const stranger = (n: number) => `127.0.4.${10 + n}`;
    for (let i = 0; i < FREE_FAILURES; i++)
      expect((await signIn(email, 'wrong password!', stranger(i))).status).toBe(401);
    // Refused attempts are not counted, so the wait is read without changing it; the owner's
    // browser mistyping (its attempts pass, and count) makes it grow.
    const waits: number[] = [];
    let trusted = 0;
    for (let failures = FREE_FAILURES; ; failures++) {
      const refused = await signIn(email, PASSWORD, stranger(failures));
      expect(refused.status).toBe(429);
      expect(refused.body).toMatch(/for this account/);
      // Read within seconds of the last failure: at most its wait, more than the one before.
      expect(refused.retryAfter).toBeLessThanOrEqual(backoffSeconds(failures));
      expect(refused.retryAfter).toBeGreaterThan(backoffSeconds(failures - 1));
      waits.push(refused.retryAfter!);
      if (backoffSeconds(failures) === BACKOFF_CAP_S) break;
      const typo = await signIn(email, 'a typo of mine', '127.0.4.1', { cookie: browser });
      expect(typo.status).toBe(401);
      trusted++;
    }
    expect(waits[0]).toBeLessThanOrEqual(BACKOFF_BASE_S);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!);
    // Capped: the doubling would have gone past it.
    expect(BACKOFF_BASE_S * 2 ** (waits.length - 1)).toBeGreaterThan(BACKOFF_CAP_S);
    // The browser's own allowance: past it, it waits like everyone else, the right password too.
    for (; trusted < SIGN_IN_PER_DEVICE.max; trusted++)
      expect((await signIn(email, 'a typo of mine', '127.0.4.1', { cookie: browser })).status).toBe(
        401,
      );
    const spent = await signIn(email, PASSWORD, '127.0.4.1', { cookie: browser });
    expect(spent.status).toBe(429);
    expect(spent.body).toMatch(/for this account/);
  });

  it("changing the password revokes the account's device cookies and other sessions; API tokens pass a lockout", async () => {
    const email = await account('changer');
    const id = (await userId(email))!;
    const { token } = await createApiToken(database.db, { userId: id, name: 'during a lockout' });
    const first = await signIn(email, PASSWORD, '127.0.5.1');
    expect(first.status).toBe(200);
    const other = await ownersBrowser(email, '127.0.5.2');
    const newPassword = `${PASSWORD} changed`;
    const changed = await post(
      '/api/auth/change-password',
      { currentPassword: PASSWORD, newPassword, revokeOtherSessions: true },
      '127.0.5.1',
      { cookie: cookieHeader(first) },
    );
    expect(changed.status, changed.body).toBe(200);
    // The browser that changed it gets a new device cookie.
    expect(changed.cookies[DEVICE_COOKIE]).toBeTruthy();
    expect(changed.cookies[DEVICE_COOKIE]).not.toBe(first.cookies[DEVICE_COOKIE]);
    const changer = cookieHeader(first, changed);
    // The other browser is signed out (its session's row; its cookie cache aside, docs/security.md).
    const otherToken = other.split('; ').find((c) => c.startsWith('better-auth.session_token='))!;
    const session = await post('/api/auth/get-session', undefined, '127.0.5.2', {
      cookie: otherToken,
    });
    expect(session.body).toBe('null');
    // A guessing run locks the account...
    for (let i = 0; i < FREE_FAILURES; i++)
      expect((await signIn(email, 'wrong password!', `127.0.5.${10 + i}`)).status).toBe(401);
    expect((await signIn(email, newPassword, '127.0.5.20')).status).toBe(429);
    // ...the old device cookie no longer lets its browser through, the new password or not...
    const revoked = await signIn(email, newPassword, '127.0.5.2', { cookie: other });
    expect(revoked.status).toBe(429);
    expect(revoked.body).toMatch(/for this account/);
    // ...an API token still works (a submission's intake answers, not 401 or 429)...
    const viaToken = await post(
      '/api/submissions',
      { challenge: 'wordcount', patch: '\n' },
      '127.0.5.21',
      { authorization: `Bearer ${token}` },
    );
    expect(viaToken.status, viaToken.body).toBe(422);
    expect(viaToken.body).toMatch(/nothing changed/);
    // ...and the browser that changed the password signs in with it.
    expect((await signIn(email, newPassword, '127.0.5.1', { cookie: changer })).status).toBe(200);
  });

  it('asks an organizer for a TOTP code when the platform requires two-factor sign-in', async () => {
    const email = await account('chief', 'ORGANIZER');
    const from = (n: number) => `127.0.3.${n}`;
    // Without a second factor the console sends the organizer to turn it on.
    const browser = await ownersBrowser(email, from(1));
    const console1 = await post('/organizer', undefined, from(1), { cookie: browser });
    expect(console1.status).toBe(307);
    expect(console1.location).toMatch(/\/account\?two-factor=required/);
    // Turn it on: password, then the first code.
    const enabled = await post('/api/auth/two-factor/enable', { password: PASSWORD }, from(2), {
      cookie: browser,
    });
    expect(enabled.status).toBe(200);
    const secret = secretOfUri((JSON.parse(enabled.body) as { totpURI: string }).totpURI);
    const confirmed = await post(
      '/api/auth/two-factor/verify-totp',
      { code: totp(secret) },
      from(3),
      {
        cookie: browser,
      },
    );
    expect(confirmed.status).toBe(200);
    // Signing in now takes the password, then a code; the password alone makes no session.
    const first = await signIn(email, PASSWORD, from(4));
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ twoFactorRedirect: true });
    expect(first.cookies['better-auth.session_token'] ?? '').toBe('');
    const wrong = await post('/api/auth/two-factor/verify-totp', { code: '000000' }, from(5), {
      cookie: cookieHeader(first),
    });
    expect(wrong.status).toBe(401);
    const second = await post('/api/auth/two-factor/verify-totp', { code: totp(secret) }, from(6), {
      cookie: cookieHeader(first),
    });
    expect(second.status).toBe(200);
    const console2 = await post('/organizer', undefined, from(6), { cookie: cookieHeader(second) });
    expect(console2.status).toBe(200);
    expect(console2.body).toMatch(/Accounts under attack/);
    // An account someone guessed at is listed there, with the number of wrong passwords.
    const victim = await account('victim');
    for (let i = 0; i < UNDER_ATTACK_AFTER; i++)
      expect((await signIn(victim, 'wrong password!', `127.0.3.${20 + i}`)).status).toBe(401);
    const console2b = await post('/organizer', undefined, from(6), {
      cookie: cookieHeader(second),
    });
    const listed = /data-testid="accounts-under-attack"[\s\S]*?<\/table>/.exec(console2b.body)?.[0];
    expect(listed, 'the accounts-under-attack table').toBeTruthy();
    const row = listed!.split('<tr').find((r) => r.includes(victim));
    expect(row, `${victim} in the table`).toBeTruthy();
    expect(row).toContain(`>${UNDER_ATTACK_AFTER}<`);
    // Recovery (the operator's command): the second factor is off and the session ended; the
    // password signs in again, and the console asks for a new second factor.
    expect(await resetTwoFactor(database.db, email)).not.toBeNull();
    // (Only the session's token: a signed session_data cookie is believed for up to a minute.)
    const token = `better-auth.session_token=${second.cookies['better-auth.session_token']}`;
    const ended = await post('/organizer', undefined, from(7), { cookie: token });
    expect(ended.status).toBe(307);
    expect(ended.location).toMatch(/\/sign-in/);
    const again = await signIn(email, PASSWORD, from(7));
    expect(JSON.parse(again.body)).not.toHaveProperty('twoFactorRedirect');
    const console3 = await post('/organizer', undefined, from(7), { cookie: cookieHeader(again) });
    expect(console3.location).toMatch(/\/account\?two-factor=required/);
  });
});

async function userId(email: string): Promise<string | undefined> {
  return (await database.db.user.findUnique({ where: { email }, select: { id: true } }))?.id;
}

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
