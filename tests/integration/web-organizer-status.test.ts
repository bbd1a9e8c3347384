// The console's runner and queue panel against a real (private) redis-server: a live runner's
// heartbeat with its current job mapped to the submission, queue depths, and a clear answer (not a
// crash or a hang) once Redis is down.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSubmission } from '../../lib/server/db/submissions/create-submission';
import { createTestDatabase, type TestDatabase } from '../../dev/database';
import { makeUser, registerChallenge } from '../../dev/db-fixtures';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis';

let t: TestDatabase;
let redis: PrivateRedis;
let client: Redis;

beforeAll(async () => {
  redis = await startPrivateRedis();
  // Read once by lib/core/config/env.ts, before any module below first asks for it.
  vi.stubEnv('REDIS_URL', redis.url);
  vi.stubEnv('PERFJUDGE_QUEUE_PREFIX', 'orgstatus');
  t = await createTestDatabase();
  (globalThis as { perfjudgeDb?: unknown }).perfjudgeDb = t.db;
  await registerChallenge(t.db);
  client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  // Refused reconnects once the server is stopped on purpose.
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

describe('organizer status', () => {
  it('shows a runner with its current submission and the queue depths, then Redis down', async () => {
    const { startHeartbeat } = await import('../../lib/server/queue/runner-heartbeat');
    const { getOrganizerStatus } = await import('../../lib/server/web/organizer-status');
    const { webQueues } = await import('../../lib/server/web/services');

    const created = await createSubmission(t.db, {
      userId: await makeUser(t.db),
      challengeSlug: 'wordcount',
      patchText: 'p',
    });
    const judging = created.judgings.find((j) => j.target === 'linux-intel')!;
    const heartbeat = startHeartbeat({
      redis: client,
      prefix: 'orgstatus',
      runner: {
        runnerId: 'runner-a',
        target: 'linux-intel',
        hostname: 'judge-host-1',
        cpuModel: 'Test CPU',
        cpuVendor: 'GenuineIntel',
        devMode: true,
        emulated: false,
        startedAt: new Date().toISOString(),
      },
      intervalMs: 60_000,
    });
    heartbeat.setCurrentJob({
      judgingId: judging.judgingId,
      round: 0,
      since: new Date().toISOString(),
    });
    await webQueues().judgeQueue('windows-amd').add('judge', { any: 'thing' });
    await webQueues().judgeQueue('windows-amd').add('judge', { any: 'thing' }, { delay: 60_000 });

    const status = await getOrganizerStatus();
    if (!status.ok) throw new Error(status.error);
    expect(status.runners).toHaveLength(1);
    expect(status.runners[0]).toMatchObject({
      runnerId: 'runner-a',
      hostname: 'judge-host-1',
      devMode: true,
      currentSubmissionId: created.submissionId,
    });
    expect(status.runners[0]!.ageSeconds).toBeLessThan(10);
    expect(status.queues.map((q) => q.name)).toEqual([
      'judge-linux-intel',
      'judge-windows-amd',
      'score',
    ]);
    expect(status.queues[1]).toMatchObject({ waiting: 1, delayed: 1, active: 0 });

    await heartbeat.stop();
    await redis.stop();
    const started = Date.now();
    const down = await getOrganizerStatus();
    expect(down.ok).toBe(false);
    if (!down.ok) expect(down.error).toMatch(/Redis is unreachable/);
    // The page waits seconds at most, never until Redis comes back.
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
