// `npm run bench -- <name> [args]`: runs the benchmark bench/<name>.ts, whose default export takes the args.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

type Benchmark = (args: string[]) => Promise<void> | void;

function available(): string {
  return readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
    .map((file) => file.slice(0, -3))
    .join(', ');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || !/^[a-z0-9][a-z0-9-]*$/.test(name) || name === 'run') {
    process.stderr.write(`usage: npm run bench -- <name> [args]  (benchmarks: ${available()})\n`);
    return 2;
  }
  const file = path.join(BENCH_DIR, `${name}.ts`);
  if (!existsSync(file)) {
    process.stderr.write(`no benchmark "${name}" (benchmarks: ${available()})\n`);
    return 2;
  }
  const module = (await import(pathToFileURL(file).href)) as { default?: Benchmark };
  if (typeof module.default !== 'function') {
    process.stderr.write(`bench/${name}.ts has no default export to run\n`);
    return 2;
  }
  await module.default(args);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
