// Everything `npm start` started, and stopping it in order on a signal or a failure.
import type { Redis } from 'ioredis';
import type { SupervisorPublisher } from '../../lib/server/queue/service-status';
import type { Child } from './process';
import { elapsed, say, warn } from './say';
import { Supervisor } from './supervise';

/**
 * Everything started so far and how to stop it. Children not supervised yet (the web build;
 * services while they start for the first time) are `pending`; the supervisor restarts a child
 * that dies, with backoff, while the rest keeps serving. The platform stops only when asked, then
 * in reverse order of need: web and runners (nothing new comes in, judgings in hand finish or are
 * handed back), then the scorer, then the stores.
 */
export interface Lifecycle {
  pending: Set<Child>;
  supervisor: Supervisor;
  publisher: SupervisorPublisher | null;
  statusRedis: Redis | null;
  /** Set once stopping began; resolves to the exit code. */
  stopping: Promise<number> | null;
  stopAll(code: number): Promise<number>;
  /** Resolves when a signal asked the platform to stop, once it has. */
  stopped: Promise<number>;
}

export function createLifecycle(graceMs: number): Lifecycle {
  const life: Lifecycle = {
    pending: new Set(),
    supervisor: new Supervisor({ log: say, onChange: () => life.publisher?.publish() }),
    publisher: null,
    statusRedis: null,
    stopping: null,
    stopAll: (code) => {
      life.stopping ??= stopEverything(life, graceMs).then(() => code);
      return life.stopping;
    },
    stopped: new Promise<number>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        if (life.stopping) return; // a second Ctrl-C: the grace periods still apply
        say(`${signal} received`);
        void life.stopAll(0).then(resolve);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    }),
  };
  return life;
}

async function stopEverything(life: Lifecycle, graceMs: number): Promise<void> {
  say('stopping…');
  const { supervisor } = life;
  supervisor.stopRestarting();
  await Promise.all([...life.pending].map((c) => c.stop(graceMs)));
  await supervisor.stop((_, kind) => kind === 'web' || kind === 'runner', graceMs);
  await supervisor.stop((_, kind) => kind === 'scorer', graceMs);
  await life.publisher?.stop();
  life.statusRedis?.disconnect();
  for (const name of ['redis', 'postgres']) {
    if (!supervisor.child(name)) continue;
    say(`stopping ${name}`);
    await supervisor
      .stop((n) => n === name, graceMs)
      .catch((error: Error) => warn(`${name}: ${error.message}`));
  }
  say(`stopped (${elapsed()} after npm start began)`);
}
