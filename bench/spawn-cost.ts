// What one child process costs to start from a Node process of a given size.
//
//   npm run bench -- spawn-cost [--spawns 200] [--resident 0,250,500]
//
// Node 20's libuv starts a child with fork() then exec(): the kernel copies the parent's page
// tables and the child tears them down again, so a spawn from a large process (a vitest worker
// running the judge, a runner) costs more than one from a small process. Every sandboxed run is a
// spawn (runner/sandbox/run-helper.ts), so this is part of what a judging costs outside its timed
// runs. Prints, per resident size (memory this process has touched on top of Node's own), the CPU
// milliseconds per spawn in this process and in the children (from /proc/self/stat's cutime and
// cstime), and the wall milliseconds from spawn to exit.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const argsSchema = z.object({
  spawns: z.coerce.number().int().min(10).max(10_000).default(200),
  resident: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'a list of MiB figures like 0,250,500')
    .default('0,250,500')
    .transform((list) => list.split(',').map(Number))
    .pipe(z.array(z.number().int().max(4096))),
});

/** User + system ticks of this process's waited-for children, in milliseconds. */
function childrenCpuMs(): number {
  // Fields after the command name (which may hold spaces): cutime and cstime are the 16th and 17th.
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100; // USER_HZ on Linux
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
}

async function measure(spawns: number) {
  const cpu = process.cpuUsage();
  const children = childrenCpuMs();
  const started = performance.now();
  for (let i = 0; i < spawns; i++)
    await new Promise((resolve) => spawn('/bin/true', { stdio: 'ignore' }).once('exit', resolve));
  const own = process.cpuUsage(cpu);
  return {
    parentMs: (own.user + own.system) / 1000 / spawns,
    childMs: (childrenCpuMs() - children) / spawns,
    wallMs: (performance.now() - started) / spawns,
  };
}

export default async function spawnCost(argv: string[]): Promise<void> {
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) options[argv[i]!.replace(/^--/, '')] = argv[i + 1] ?? '';
  const { spawns, resident } = argsSchema.parse(options);
  const held: Buffer[] = [];
  console.log(`spawn-cost: ${spawns} spawns of /bin/true per size, Node ${process.version}`);
  console.log('resident MiB  parent CPU ms  children CPU ms  wall ms   (per spawn)');
  for (const mib of [...resident].sort((a, b) => a - b)) {
    while (held.length < mib) held.push(Buffer.alloc(1 << 20, 1)); // touched, so resident
    const r = await measure(spawns);
    console.log(
      `${String(mib).padStart(12)}  ${r.parentMs.toFixed(2).padStart(13)}  ` +
        `${r.childMs.toFixed(2).padStart(15)}  ${r.wallMs.toFixed(2).padStart(7)}`,
    );
  }
}
