// npm start's supervision with real child processes: one killed with SIGKILL is started again
// after the first backoff delay, its death and return logged with the reason, while its sibling
// keeps running; a stop ends restarts. The delays stay within the 30 s a dead child may take.
import { describe, expect, it } from 'vitest';
import { startChild, type Child } from '../../scripts/start/process';
import {
  RESTART_DELAYS_MS,
  restartDelayMs,
  Supervisor,
  type Supervised,
} from '../../scripts/start/supervise';

function sleeper(name: string): Supervised {
  return {
    name,
    kind: 'runner',
    async start(launched) {
      const child = startChild({
        name,
        command: process.execPath,
        args: ['-e', 'console.log("up"); setInterval(() => {}, 1000)'],
        cwd: process.cwd(),
        env: process.env,
        echo: false,
      });
      launched(child);
      await child.waitForLine(/up/, 10_000);
      return child;
    },
  };
}

describe('restartDelayMs', () => {
  it('backs off and never waits longer than 15 s', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(restartDelayMs)).toEqual([
      1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000,
    ]);
    expect(Math.max(...RESTART_DELAYS_MS)).toBeLessThan(30_000);
  });
});

describe('Supervisor', () => {
  it('restarts a killed child while its sibling keeps running, and stops on request', async () => {
    const lines: string[] = [];
    const supervisor = new Supervisor({ log: (l) => lines.push(l) });
    const a = sleeper('runner a');
    const b = sleeper('scorer b');
    const first: Record<string, Child> = {};
    for (const spec of [a, b]) {
      first[spec.name] = await spec.start(() => undefined);
      supervisor.watch(spec, first[spec.name]!);
    }
    process.kill(first['runner a']!.process.pid!, 'SIGKILL');
    await first['runner a']!.exited;
    const deadline = Date.now() + 10_000;
    while (!lines.some((l) => l.startsWith('runner a is back')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(lines.join('\n')).toMatch(/runner a died \(killed by SIGKILL\)/);
    expect(lines.join('\n')).toMatch(/restarting runner a in 1\.0 s/);
    expect(lines.join('\n')).toMatch(/runner a is back \(restart 1, /);
    const second = supervisor.child('runner a')!;
    expect(second.running()).toBe(true);
    expect(second.process.pid).not.toBe(first['runner a']!.process.pid);
    expect(first['scorer b']!.running()).toBe(true);
    const states = supervisor.statuses();
    expect(states.find((s) => s.name === 'runner a')).toMatchObject({
      state: 'running',
      restarts: 1,
      lastExit: { reason: 'killed by SIGKILL' },
    });

    await supervisor.stop(() => true, 5_000);
    expect(second.running()).toBe(false);
    expect(first['scorer b']!.running()).toBe(false);
    expect(supervisor.statuses().every((s) => s.state === 'down')).toBe(true);
    expect(lines.filter((l) => l.includes('died'))).toHaveLength(1);
  }, 30_000);
});
