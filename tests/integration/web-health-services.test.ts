// /api/health and the organizer console show a supervised process that is down or restarting,
// from the supervisor's report in Redis (npm start's, or a scorer's about itself), and forget a
// supervisor that stopped reporting. A real (private) redis-server and PostgreSQL schema.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServiceStatus } from '../../contracts';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { registerChallenge } from '../../dev/db-fixtures';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis';

let t: TestDatabase;
let redis: PrivateRedis;
let client: Redis;
const PREFIX = 'healthsvc';

beforeAll(async () => {
  redis = await startPrivateRedis();
  // Read once by lib/core/config/env.ts, before any module below first asks for it.
  vi.stubEnv('REDIS_URL', redis.url);
  vi.stubEnv('PERFJUDGE_QUEUE_PREFIX', PREFIX);
  t = await createTestDatabase();
  (globalThis as { perfjudgeDb?: unknown }).perfjudgeDb = t.db;
  await registerChallenge(t.db);
  client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
});

afterAll(async () => {
  const { webQueues, webRedis } = await import('../../lib/server/web/services');
  const { webCounters } = await import('../../lib/server/queue/web-counters');
  await webQueues().close();
  webCounters().disconnect();
  webRedis().disconnect();
  client?.disconnect();
  await redis?.dispose();
  await t?.drop();
  vi.unstubAllEnvs();
});

const now = () => new Date().toISOString();
function status(name: string, kind: ServiceStatus['kind'], extra: Partial<ServiceStatus> = {}) {
  return {
    name,
    kind,
    state: 'running' as const,
    restarts: 0,
    lastExit: null,
    nextStartAt: null,
    since: now(),
    ...extra,
  };
}

describe('supervised processes in health and the console', () => {
  it('name a runner that is restarting, and why; a stopped supervisor drops out', async () => {
    const { startSupervisorPublisher } = await import('../../lib/server/queue/service-status');
    const { GET } = await import('../../app/api/health/route');
    const { getOrganizerStatus } = await import('../../lib/server/web/organizer-status');

    let runner = status('runner linux-intel', 'runner', {
      state: 'restarting',
      restarts: 2,
      lastExit: { at: now(), reason: 'killed by SIGKILL' },
      nextStartAt: now(),
    });
    const npmStart = startSupervisorPublisher({
      redis: client,
      prefix: PREFIX,
      id: 'host-1',
      report: () => ({
        supervisor: 'npm start on host (pid 1)',
        services: [status('web', 'web'), status('scorer', 'scorer'), runner],
      }),
    });
    const scorer = startSupervisorPublisher({
      redis: client,
      prefix: PREFIX,
      id: 'scorer-host-2',
      report: () => ({
        supervisor: 'scorer host (pid 2)',
        services: [status('scorer', 'scorer')],
      }),
    });
    await new Promise((r) => setTimeout(r, 300));

    const response = await GET();
    const body = (await response.json()) as { ok: boolean; scorers: number; problems: string[] };
    expect(response.status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.scorers).toBe(1);
    expect(body.problems).toEqual([
      expect.stringMatching(/^runner linux-intel: restarting \(killed by SIGKILL\), next start /),
      // No heartbeat at all: nothing serves either target.
      'runner linux-intel: none alive',
      'runner windows-amd: none alive',
    ]);

    const panel = await getOrganizerStatus();
    if (!panel.ok) throw new Error(panel.error);
    expect(panel.services.find((s) => s.name === 'runner linux-intel')).toMatchObject({
      state: 'restarting',
      restarts: 2,
      supervisor: 'npm start on host (pid 1)',
    });

    // Back: nothing to report. Then both supervisors stop: their reports are gone at once.
    runner = status('runner linux-intel', 'runner', { restarts: 3 });
    npmStart.publish();
    await new Promise((r) => setTimeout(r, 200));
    expect(((await (await GET()).json()) as { problems: string[] }).problems).toEqual([
      'runner linux-intel: none alive',
      'runner windows-amd: none alive',
    ]);
    await npmStart.stop();
    await scorer.stop();
    const after = (await (await GET()).json()) as { scorers: number; problems: string[] };
    expect(after.scorers).toBe(0);
    expect(after.problems).toContain('scorer: none reporting (results are not being recorded)');
    const { listSupervisorReports } = await import('../../lib/server/queue/service-status');
    expect(await listSupervisorReports(client, PREFIX)).toEqual([]);
  }, 60_000);
});
