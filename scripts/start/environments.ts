// The children's environments, and the supervisor's view of them published for /api/health.
import os from 'node:os';
import { env } from '../../lib/core/config/env';
import { createHttpConnection } from '../../lib/server/queue/connection';
import { startSupervisorPublisher } from '../../lib/server/queue/service-status';
import type { Lifecycle } from './lifecycle';
import type { StartPlan } from './plan';

/** The environments of the children: the platform side resolves each job's benchmark input. */
export interface ServiceEnvironments {
  /** Seeds and the development size, for the web app and the scorer. */
  platform: NodeJS.ProcessEnv;
  web: NodeJS.ProcessEnv;
  /** Redis and the database: the scorer's base; runners get it without the database. */
  service: NodeJS.ProcessEnv;
}

export function serviceEnvironments(
  plan: StartPlan,
  urls: { databaseUrl: string; redisUrl: string },
): ServiceEnvironments {
  const { config, baseEnv } = plan;
  // The benchmark definition is in the database (every job is made from it there); the seeds are
  // only what a web app or scorer compares it with at start.
  const platform = { ...plan.seeds };
  return {
    platform,
    web: {
      ...baseEnv,
      ...platform,
      NODE_ENV: 'production',
      DATABASE_URL: urls.databaseUrl,
      REDIS_URL: urls.redisUrl,
      PERFJUDGE_PUBLIC_URL: plan.publicUrl,
      PERFJUDGE_AUTH_SECRET: plan.authSecret,
      PERFJUDGE_NEXT_DIST_DIR: config.PERFJUDGE_NEXT_DIST_DIR,
      PORT: String(config.PORT),
    },
    service: { ...baseEnv, REDIS_URL: urls.redisUrl, DATABASE_URL: urls.databaseUrl },
  };
}

/** Publishes the supervisor's view of its children for /api/health and the organizer console. */
export function startStatusPublisher(life: Lifecycle, redisUrl: string): void {
  life.statusRedis = createHttpConnection({
    url: redisUrl,
    connectionName: 'perfjudge-npm-start',
    onError: () => undefined, // Redis restarting is reported by the supervisor itself
  });
  life.publisher = startSupervisorPublisher({
    redis: life.statusRedis,
    prefix: env().PERFJUDGE_QUEUE_PREFIX,
    id: `${os.hostname()}-${process.pid}`,
    report: () => ({
      supervisor: `npm start on ${os.hostname()} (pid ${process.pid})`,
      services: life.supervisor.statuses(),
    }),
  });
}
