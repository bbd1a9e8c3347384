// `npm start` after the bootstrap (scripts/start.mjs): the whole platform on this machine. Private
// PostgreSQL and Redis under .data/ unless DATABASE_URL / REDIS_URL are set, migrations and the
// seed, pre-generated inputs, the production web build, then the web server, the scorer and one
// runner per target this host can serve. Ctrl-C (SIGINT) or SIGTERM stops everything in order.
import path from 'node:path';
import { env } from '../../lib/core/config/env';
import { startEnv, type StartEnv } from '../../lib/core/config/start-env';
import { serviceEnvironments, startStatusPublisher } from './environments';
import { pregenerateInputs } from './inputs';
import { createLifecycle } from './lifecycle';
import { migrateAndSeed } from './migrate-seed';
import { checkHost, loadPlan, type StartPlan } from './plan';
import { planRunners } from './runners';
import { elapsed, startClock, warn } from './say';
import { startServices } from './services';
import { startDatabase, startRedis } from './stores';
import { buildWebApp } from './web';

export function printReady(plan: StartPlan, served: string[], notServed: string[]): void {
  const lines = [
    '',
    `perfjudge is running: ${plan.publicUrl} (ready ${elapsed()} after npm start began)`,
    `  organizer: ${plan.organizer.email}`,
    `  password:  ${plan.organizer.password}   (kept in ${path.join(plan.dataDir, 'secrets.json')})`,
    ...served.map((n) => `  ${n}`),
    ...notServed.map((n) => `  ${n}`),
    `  health:    ${plan.publicUrl}/api/health`,
    '  A child that dies is restarted; Ctrl-C stops everything.',
    '',
  ];
  process.stdout.write(lines.map((l) => `[start] ${l}`).join('\n') + '\n');
}

export async function main(): Promise<number> {
  let config: StartEnv;
  let dataDir: string;
  try {
    config = startEnv();
    dataDir = env().PERFJUDGE_DATA_DIR;
  } catch (error) {
    warn(error instanceof Error ? error.message : String(error));
    return 1;
  }
  startClock(config.PERFJUDGE_START_BEGAN_AT ?? Date.now());
  const life = createLifecycle(config.PERFJUDGE_STOP_GRACE_SECONDS * 1000);
  try {
    const plan = await loadPlan(config, dataDir);
    await checkHost(plan);
    const databaseUrl = await startDatabase(plan, life);
    const redisUrl = await startRedis(plan, life);
    const definition = await migrateAndSeed(plan, databaseUrl);
    // The runners would generate the inputs on the first judging; now, with progress.
    const { challenge } = plan;
    const { plans: runnerPlans, notServed } = await planRunners(
      config,
      challenge,
      definition,
      dataDir,
    );
    if (runnerPlans.length)
      await pregenerateInputs(
        challenge,
        {
          seed: definition.seed ?? plan.seeds[challenge.manifest.inputs.benchmark.seedEnv]!,
          sizeBytes: definition.sizeBytes,
          rareSeparators: challenge.manifest.inputs.rareSeparators,
        },
        dataDir,
      );
    const envs = serviceEnvironments(plan, { databaseUrl, redisUrl });
    await buildWebApp(plan, life, envs.web);
    if (life.stopping) return await life.stopping;
    startStatusPublisher(life, redisUrl);
    const served = await startServices(plan, life, envs, runnerPlans, notServed);
    if (life.stopping) return await life.stopping;
    printReady(plan, served, notServed);
    // Until a signal: deaths are the supervisor's business from here on.
    return await life.stopped;
  } catch (error) {
    if (life.stopping) return await life.stopping;
    warn(error instanceof Error ? error.message : String(error));
    return life.stopAll(1);
  }
}
