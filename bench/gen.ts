// Throughput of the wordcount input generator writing a file, and of the baseline reading it.
// Prints figures only: the machine is shared, so nothing here asserts a speed.
import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseByteSize } from '../contracts';
import { loadChallenge, CHALLENGES_DIR } from '../lib/core/challenge/load-manifest';
import { cachedBuild } from '../runner/build';
import { wordcountInputChunks } from '../challenges/wordcount/generator';

const MB = 1e6;

interface Options {
  sizeBytes: number;
  seed: string;
  runs: number;
  baseline: boolean;
}

function parseArgs(args: string[]): Options {
  const options: Options = {
    sizeBytes: 256 * 1024 * 1024,
    seed: 'bench-1',
    runs: 3,
    baseline: true,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--size') {
      const size = parseByteSize(value());
      if (size === undefined) throw new Error(`--size: not a size: ${args[i]}`);
      options.sizeBytes = size;
    } else if (arg === '--seed') options.seed = value();
    else if (arg === '--runs') options.runs = Math.max(1, Number.parseInt(value(), 10) || 1);
    else if (arg === '--no-baseline') options.baseline = false;
    else throw new Error(`unknown argument ${arg} (use --size, --seed, --runs, --no-baseline)`);
  }
  return options;
}

/** Generates the file the way `perfjudge gen --out` does (synchronous writes of a reused buffer). */
function generateFile(file: string, options: Options): { wallS: number; cpuS: number } {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const fd = openSync(file, 'w');
  try {
    for (const chunk of wordcountInputChunks({
      sizeBytes: options.sizeBytes,
      seed: options.seed,
    })) {
      let offset = 0;
      while (offset < chunk.length) offset += writeSync(fd, chunk, offset, chunk.length - offset);
    }
  } finally {
    closeSync(fd);
  }
  const cpu = process.cpuUsage(cpu0);
  return { wallS: (performance.now() - t0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 };
}

function timeRun(binary: string, input: string): Promise<{ wallS: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(binary, [input], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ wallS: (performance.now() - t0) / 1000, code }));
  });
}

export default async function benchGen(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const file = path.join(os.tmpdir(), `perfjudge-bench-gen-${process.pid}.txt`);
  const sizeMiB = (options.sizeBytes / 1024 / 1024).toFixed(0);
  try {
    let best = 0;
    for (let run = 1; run <= options.runs; run++) {
      const { wallS, cpuS } = generateFile(file, options);
      const rate = options.sizeBytes / wallS / MB;
      best = Math.max(best, rate);
      console.log(
        `generator run ${run}: ${sizeMiB} MiB in ${wallS.toFixed(2)} s wall ` +
          `(${cpuS.toFixed(2)} s cpu) = ${rate.toFixed(1)} MB/s`,
      );
    }
    console.log(`generator best: ${best.toFixed(1)} MB/s (writing ${file})`);

    if (!options.baseline) return;
    const challenge = await loadChallenge('wordcount');
    const target = challenge.manifest.targets['linux-intel'];
    if (!target) throw new Error('the wordcount manifest has no linux-intel target');
    const build = await cachedBuild({
      challenge,
      sourceDir: challenge.templateDir,
      toolchain: target.toolchain,
      solution: false,
      cacheRoot: path.join(path.dirname(CHALLENGES_DIR), '.data', 'builds'),
    });
    if (!build.ok || !build.binary) {
      console.log(`baseline: build failed: ${build.message ?? 'unknown reason'}`);
      return;
    }
    // Warm the page cache (the file was just written, but be explicit), then time one run.
    await timeRun('/bin/cat', file).catch(() => undefined);
    const { wallS, code } = await timeRun(build.binary, file);
    console.log(
      `baseline (${target.toolchain.cxx} ${target.toolchain.flags.join(' ')}, ` +
        `${build.cached ? 'cached build' : 'fresh build'}): ${sizeMiB} MiB in ${wallS.toFixed(2)} s ` +
        `= ${(options.sizeBytes / wallS / MB).toFixed(1)} MB/s` +
        (code === 0 ? '' : ` (exit code ${code})`),
    );
  } finally {
    rmSync(file, { force: true });
  }
}
