// PostgreSQL and Redis: the ones DATABASE_URL and REDIS_URL name, or private ones under .data/,
// supervised (private-stores.ts starts them).
import { UnavailableError } from '../../contracts';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/core/config/env';
import type { Lifecycle } from './lifecycle';
import type { StartPlan } from './plan';
import { findPostgresBin, startPrivatePostgres, startPrivateRedis } from './private-stores';
import { runPrefixed } from './process';
import { say } from './say';

/** DATABASE_URL, or a private PostgreSQL (installed with apt-get as root when missing), supervised. */
export async function startDatabase(plan: StartPlan, life: Lifecycle): Promise<string> {
  const { config, dataDir, baseEnv } = plan;
  if (config.DATABASE_URL) {
    say(`database: DATABASE_URL (${new URL(config.DATABASE_URL).host})`);
    return config.DATABASE_URL;
  }
  let bin = findPostgresBin();
  if (!bin && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    say('installing PostgreSQL (apt-get install postgresql)');
    const { code } = await runPrefixed({
      name: 'apt',
      command: 'apt-get',
      args: ['install', '-y', '-qq', '--no-install-recommends', 'postgresql'],
      cwd: REPO_ROOT,
      env: { ...baseEnv, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (code === 0) bin = findPostgresBin();
  }
  if (!bin)
    throw new UnavailableError(
      'no PostgreSQL found (/usr/lib/postgresql/*/bin). Install it (sudo apt-get install postgresql) ' +
        'or set DATABASE_URL to an existing database',
    );
  const postgresBin = bin;
  let postgres = await startPrivatePostgres({ bin, dataDir, env: baseEnv, log: say });
  const { port } = postgres;
  life.supervisor.watch(
    {
      name: 'postgres',
      kind: 'store',
      async start(launched) {
        postgres = await startPrivatePostgres({
          bin: postgresBin,
          dataDir,
          env: baseEnv,
          log: say,
          port,
          launched,
        });
        return postgres.child;
      },
      stop: () => postgres.stop(),
    },
    postgres.child,
  );
  say(
    `database: private PostgreSQL on 127.0.0.1:${port} (data: ${path.join(dataDir, 'postgres')})`,
  );
  return postgres.url;
}

/** REDIS_URL, or a private redis-server with an append-only file, supervised. */
export async function startRedis(plan: StartPlan, life: Lifecycle): Promise<string> {
  const { config, dataDir, baseEnv } = plan;
  if (config.REDIS_URL) {
    say(`redis: REDIS_URL (${new URL(config.REDIS_URL).host})`);
    return config.REDIS_URL;
  }
  let redis = await startPrivateRedis({ dataDir, env: baseEnv, log: say });
  const { port } = redis;
  life.supervisor.watch(
    {
      name: 'redis',
      kind: 'store',
      async start(launched) {
        redis = await startPrivateRedis({ dataDir, env: baseEnv, log: say, port, launched });
        return redis.child;
      },
      stop: () => redis.stop(),
    },
    redis.child,
  );
  say(
    `redis: private redis-server on 127.0.0.1:${port} (append-only file: ${path.join(dataDir, 'redis')})`,
  );
  return redis.url;
}
