// A perfjudge service process for benches (runner, scorer): started from bin/perfjudge.mjs with its
// output kept, ready once a line matches; stopped with SIGTERM, then SIGKILL after 30 s.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../lib/core/config/env';

const BIN = path.join(REPO_ROOT, 'bin/perfjudge.mjs');

export function startProcess(args: string[], childEnv: NodeJS.ProcessEnv, ready: RegExp) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const isReady = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (ready.test(output)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args[0]} exited (${code}):\n${output}`)));
  });
  return { child, isReady, output: () => output };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}
