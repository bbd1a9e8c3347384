// The final evaluation's API routes and the CLI commands that call them, against the real
// PostgreSQL and Redis: the route handlers themselves (app/api/…) behind a plain HTTP server that
// hands each request to them as Next.js would, called with real API tokens — by fetch for the
// validation errors, and by the real `perfjudge` process (bin/perfjudge.mjs) for the commands.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { createApiToken } from '../../lib/server/db/accounts/create-api-token';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser, registerChallenge } from '../../dev/db-fixtures';
import { acceptedSubmission } from '../helpers/final-fixtures';
import { deleteKeys, testRedisUrl } from '../helpers/queue';

const execFileAsync = promisify(execFile);
const PREFIX = `pjtest-final-api-${randomBytes(3).toString('hex')}`;
const SLUG = 'final-api';

let t: TestDatabase;
let server: http.Server;
let base: string;
let organizerToken: string;
let contestantToken: string;
let submissionId: string;

type Handler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;
type Routes = { pattern: RegExp; keys: string[]; module: Record<string, Handler> }[];

/** Next.js's routing for the handful of routes under test: path pattern → module, params by name. */
async function loadRoutes(): Promise<Routes> {
  return [
    {
      pattern: /^\/api\/challenges\/([^/]+)\/final$/,
      keys: ['slug'],
      module: await import('../../app/api/challenges/[slug]/final/route'),
    },
    {
      pattern: /^\/api\/challenges\/([^/]+)\/final\/publish$/,
      keys: ['slug'],
      module: await import('../../app/api/challenges/[slug]/final/publish/route'),
    },
    {
      pattern: /^\/api\/challenges\/([^/]+)\/final\/cancel$/,
      keys: ['slug'],
      module: await import('../../app/api/challenges/[slug]/final/cancel/route'),
    },
    {
      pattern: /^\/api\/challenges\/([^/]+)\/final-selection$/,
      keys: ['slug'],
      module: await import('../../app/api/challenges/[slug]/final-selection/route'),
    },
    {
      pattern: /^\/api\/submissions\/([^/]+)\/repeat$/,
      keys: ['id'],
      module: await import('../../app/api/submissions/[id]/repeat/route'),
    },
  ] as unknown as Routes;
}

function serve(routes: Routes): http.Server {
  return http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const route = routes.find((r) => r.pattern.test(url.pathname));
      const handler = route?.module[req.method ?? 'GET'];
      if (!route || !handler) {
        res.writeHead(404).end();
        return;
      }
      const m = route.pattern.exec(url.pathname)!;
      const params = Object.fromEntries(
        route.keys.map((k, i) => [k, decodeURIComponent(m[i + 1]!)]),
      );
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const request = new Request(url, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        ...(body && req.method !== 'GET' ? { body } : {}),
      });
      const response = await handler(request, { params: Promise.resolve(params) });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    })();
  });
}

async function api(
  method: string,
  pathname: string,
  options: { token?: string; body?: unknown; raw?: string; type?: string } = {},
) {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      'content-type': options.type ?? 'application/json',
    },
    ...(options.raw !== undefined
      ? { body: options.raw }
      : options.body !== undefined
        ? { body: JSON.stringify(options.body) }
        : {}),
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: { message: string; code?: string } } & Record<
      string,
      unknown
    >,
  };
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      [path.join(REPO_ROOT, 'bin/perfjudge.mjs'), ...args],
      { cwd: REPO_ROOT },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  // Read once by lib/core/config/env.ts, before any route module first asks for it.
  vi.stubEnv('REDIS_URL', testRedisUrl());
  vi.stubEnv('PERFJUDGE_QUEUE_PREFIX', PREFIX);
  t = await createTestDatabase();
  (globalThis as { perfjudgeDb?: unknown }).perfjudgeDb = t.db;
  const { version } = await registerChallenge(t.db, { slug: SLUG });
  await t.db.challenge.update({
    where: { slug: SLUG },
    data: { deadline: new Date(Date.now() + 3600_000) },
  });
  const organizer = await makeUser(t.db, 'api-organizer');
  await t.db.user.update({ where: { id: organizer }, data: { role: 'ORGANIZER' } });
  const contestant = await makeUser(t.db, 'api-contestant');
  submissionId = await acceptedSubmission(t.db, {
    userId: contestant,
    slug: SLUG,
    version,
    speedup: 2,
    patch: 'speed=2',
  });
  organizerToken = (await createApiToken(t.db, { userId: organizer, name: 'cli' })).token;
  contestantToken = (await createApiToken(t.db, { userId: contestant, name: 'cli' })).token;
  server = serve(await loadRoutes());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  const { webQueues, webRedis } = await import('../../lib/server/web/services');
  await webQueues().close();
  webRedis().disconnect();
  const redis = new Redis(testRedisUrl());
  await deleteKeys(redis, `${PREFIX}:*`);
  await redis.quit();
  await t?.drop();
  vi.unstubAllEnvs();
});

describe('the final evaluation API', () => {
  it('answers bad requests with the status and a message naming what was wrong', async () => {
    // A revoked or mistyped token (a browser session needs Next's request scope, not here).
    const anonymous = await api('POST', `/api/challenges/${SLUG}/final`, {
      token: 'pj_wrong',
      body: {},
    });
    expect(anonymous.status).toBe(401);
    expect(
      (await api('POST', `/api/challenges/${SLUG}/final`, { token: contestantToken, body: {} }))
        .status,
    ).toBe(403);
    const rounds = await api('POST', `/api/challenges/${SLUG}/final`, {
      token: organizerToken,
      body: { rounds: 2 },
    });
    expect(rounds.status).toBe(422);
    expect(rounds.body.error?.message).toMatch(/rounds.*at least 6/);
    const extra = await api('POST', `/api/challenges/${SLUG}/final`, {
      token: organizerToken,
      body: { seed: 'mine' },
    });
    expect(extra.status).toBe(422);
    expect(extra.body.error?.message).toMatch(/seed/);
    expect(
      (await api('POST', `/api/challenges/${SLUG}/final`, { token: organizerToken, raw: '{' }))
        .status,
    ).toBe(422);
    expect(
      (
        await api('POST', `/api/challenges/${SLUG}/final`, {
          token: organizerToken,
          raw: '{}',
          type: 'text/plain',
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await api('POST', `/api/challenges/${SLUG}/final/cancel`, {
          token: organizerToken,
          raw: JSON.stringify({ reason: 'x'.repeat(20_000) }),
        })
      ).status,
    ).toBe(413);
    const selection = await api('PUT', `/api/challenges/${SLUG}/final-selection`, {
      token: contestantToken,
      body: { submissionId: 'not an id!' },
    });
    expect(selection.status).toBe(422);
    expect(selection.body.error?.message).toMatch(/submission id/);
    const times = await api('POST', `/api/submissions/${submissionId}/repeat`, {
      token: organizerToken,
      body: { times: 50, reason: 'dispute' },
    });
    expect(times.status).toBe(422);
    expect(times.body.error?.message).toMatch(/at most 20/);
    expect(
      (
        await api('POST', `/api/submissions/${submissionId}/repeat`, {
          token: contestantToken,
          body: { times: 2, reason: 'dispute' },
        })
      ).status,
    ).toBe(403);
    const none = await api('GET', `/api/challenges/${SLUG}/final`, { token: contestantToken });
    expect(none).toMatchObject({ status: 404, body: { error: { code: 'not-found' } } });
  });
});

describe('perfjudge final, select and repeat', () => {
  const server = () => ['--server', base];
  it('select before the deadline, start refused then started, status, publish refused, select closed', async () => {
    const selected = await cli(
      'select',
      ...server(),
      '--token',
      contestantToken,
      '--challenge',
      SLUG,
      submissionId,
    );
    expect(selected.stdout).toContain(`Submission ${submissionId} is your final one`);
    expect(selected.code).toBe(0);

    const early = await cli(
      'final',
      'start',
      ...server(),
      '--token',
      organizerToken,
      '--challenge',
      SLUG,
      '--rounds',
      '6',
    );
    expect(early.stderr).toMatch(
      /perfjudge final start: refused \(409\): The final evaluation starts after the deadline/,
    );
    expect(early.code).toBe(1);

    await t.db.challenge.update({ where: { slug: SLUG }, data: { closedAt: new Date() } });
    const started = await cli(
      'final',
      'start',
      ...server(),
      '--token',
      organizerToken,
      '--challenge',
      SLUG,
      '--rounds',
      '6',
    );
    expect(started.stdout).toMatch(/Final evaluation \S+ started: 1 finalists, 2 sessions/);
    expect(started.code).toBe(0);

    const status = await cli(
      'final',
      'status',
      ...server(),
      '--token',
      organizerToken,
      '--challenge',
      SLUG,
    );
    expect(status.stdout).toMatch(/RUNNING/);
    expect(status.stdout).toMatch(/linux-intel\s+QUEUED\s+0\/6 rounds/);
    expect(status.code).toBe(0);
    const json = await cli(
      'final',
      'status',
      ...server(),
      '--token',
      contestantToken,
      '--challenge',
      SLUG,
      '--json',
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'RUNNING', entrants: [] });

    const publish = await cli(
      'final',
      'publish',
      ...server(),
      '--token',
      organizerToken,
      '--challenge',
      SLUG,
    );
    expect(publish.stderr).toMatch(/Only a finished final evaluation can be published/);
    expect(publish.code).toBe(1);
    const notOrganizer = await cli(
      'final',
      'publish',
      ...server(),
      '--token',
      contestantToken,
      '--challenge',
      SLUG,
    );
    expect(notOrganizer.stderr).toMatch(/not allowed \(403\)/);
    expect(notOrganizer.code).toBe(2);

    const late = await cli(
      'select',
      ...server(),
      '--token',
      contestantToken,
      '--challenge',
      SLUG,
      submissionId,
    );
    expect(late.stderr).toMatch(/The final selection is closed/);
    expect(late.code).toBe(1);

    const cancelled = await cli(
      'final',
      'cancel',
      ...server(),
      '--token',
      organizerToken,
      '--challenge',
      SLUG,
      '--reason',
      'test over',
    );
    expect(cancelled.code).toBe(0);
  });

  it('repeat queues N judgings per target; bad options are usage errors', async () => {
    const repeat = await cli(
      'repeat',
      ...server(),
      '--token',
      organizerToken,
      '--times',
      '3',
      '--reason',
      'contestant disputes',
      submissionId,
    );
    expect(repeat.stdout).toMatch(/Queued 6 repeat judgings/);
    expect(repeat.code).toBe(0);
    const listed = await api('GET', `/api/submissions/${submissionId}/repeat`, {
      token: organizerToken,
    });
    expect((listed.body.repeats as unknown[]).length).toBe(6);

    const one = await cli(
      'repeat',
      ...server(),
      '--token',
      organizerToken,
      '--times',
      '1',
      '--reason',
      'r',
      submissionId,
    );
    expect(one.stderr).toMatch(/--times: "1" must be a whole number ≥ 2/);
    expect(one.code).toBe(2);
    const target = await cli(
      'repeat',
      ...server(),
      '--token',
      organizerToken,
      '--times',
      '2',
      '--target',
      'mars',
      '--reason',
      'r',
      submissionId,
    );
    expect(target.stderr).toMatch(/--target: "mars" is not a target/);
    expect(target.code).toBe(2);
    const rounds = await cli(
      'final',
      'start',
      ...server(),
      '--token',
      organizerToken,
      '--challenge',
      SLUG,
      '--rounds',
      'many',
    );
    expect(rounds.stderr).toMatch(/--rounds: "many" must be a whole number/);
    expect(rounds.code).toBe(2);
    const missing = await cli('final', 'status', ...server(), '--token', organizerToken);
    expect(missing.stderr).toMatch(/--challenge/);
    expect(missing.code).toBe(2);
  });
});
