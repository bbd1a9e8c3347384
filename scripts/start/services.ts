// The platform's processes (the scorer, the web server, the runners), started once here and
// supervised from then on.
import path from 'node:path';
import type { ServiceStatus } from '../../contracts';
import { REPO_ROOT } from '../../lib/core/config/env';
import type { ServiceEnvironments } from './environments';
import type { Lifecycle } from './lifecycle';
import type { StartPlan } from './plan';
import { waitFor } from './private-stores';
import { ChildExitedError, startChild, type Child } from './process';
import type { RunnerPlan } from './runners';
import { say } from './say';
import type { Supervised } from './supervise';
import { healthy } from './web';

const BIN = path.join(REPO_ROOT, 'bin', 'perfjudge.mjs');
/** `next start` with client addresses from the connection (lib/core/net/client-address.ts). */
const WEB_SERVER = path.join(REPO_ROOT, 'scripts', 'web-server.mjs');

/** A perfjudge process that the supervisor starts again whenever it dies. */
function supervisedService(
  life: Lifecycle,
  name: string,
  kind: ServiceStatus['kind'],
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  ready: (child: Child) => Promise<unknown>,
): Supervised {
  return {
    name,
    kind,
    async start(launched) {
      const child = startChild({
        name,
        command: process.execPath,
        args,
        cwd: REPO_ROOT,
        env: childEnv,
      });
      launched(child);
      life.pending.add(child);
      try {
        await ready(child);
        return child;
      } catch (error) {
        await child.stop(5_000);
        throw error;
      } finally {
        life.pending.delete(child);
      }
    },
  };
}

/**
 * The scorer, the web server and one runner per planned target, each started once here and
 * watched from then on. Resolves with what each runner serves (a runner that refuses this host is
 * reported, and the rest of the platform runs), or when a signal stops everything meanwhile.
 */
export async function startServices(
  plan: StartPlan,
  life: Lifecycle,
  envs: ServiceEnvironments,
  runnerPlans: RunnerPlan[],
  notServed: string[],
): Promise<string[]> {
  const { config } = plan;
  const grace = String(Math.max(1, config.PERFJUDGE_STOP_GRACE_SECONDS - 5));
  const scorer = supervisedService(
    life,
    'scorer',
    'scorer',
    [BIN, 'scorer', '--grace-seconds', grace],
    { ...envs.service, ...envs.platform },
    (child) => child.waitForLine(/scorer ready/, 120_000),
  );
  // Runners never get database credentials (the security model); they need Redis only: the
  // benchmark input, seed included, comes in each job. The seed is still set as the fallback
  // for jobs of a platform that knows none.
  const { DATABASE_URL: _noDb, ...runnerEnv } = envs.service;
  const localUrl = `http://127.0.0.1:${config.PORT}`;
  const web = supervisedService(
    life,
    'web',
    'web',
    [WEB_SERVER, '--port', String(config.PORT)],
    envs.web,
    (child) => waitFor('the web server', () => healthy(localUrl), 180_000, child),
  );
  const first = async (spec: Supervised): Promise<void> => {
    const child = await spec.start(() => undefined);
    life.supervisor.watch(spec, child);
  };
  const served: string[] = [];
  const waits: Promise<unknown>[] = [first(scorer), first(web)];
  for (const runnerPlan of runnerPlans) {
    const { target, args } = runnerPlan;
    say(`starting runner ${target}: perfjudge runner --target ${target} ${args.join(' ')}`);
    const runner = supervisedService(
      life,
      `runner ${target}`,
      'runner',
      [BIN, 'runner', '--target', target, ...args],
      { ...runnerEnv, ...plan.seeds },
      (child) => child.waitForLine(/serving /, 600_000),
    );
    waits.push(
      first(runner).then(
        () => served.push(runnerPlan.note),
        (error: unknown) => {
          const reason =
            error instanceof ChildExitedError
              ? (error.lines.filter((l) => l.trim()).at(-1) ?? `exit ${error.exitCode}`)
              : (error as Error).message;
          notServed.push(`${target}: not served (${reason})`);
        },
      ),
    );
  }
  await Promise.race([Promise.all(waits), life.stopped]);
  return served;
}
