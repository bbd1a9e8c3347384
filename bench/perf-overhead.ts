// What counting costs a timed run: the baseline alternately with and without the sandbox's counters
// (same sandbox, pinned to the last CPU), median wall times side by side (figures only).
//   npm run bench -- perf-overhead [--size 64MiB] [--pairs 10]
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseByteSize } from '../contracts';
import { REPO_ROOT } from '../lib/core/config/env';
import { loadChallenge } from '../lib/core/challenge/load-manifest';
import { cachedBuild } from '../runner/build';
import { ensureInput, warmPageCache } from '../lib/core/challenge/inputs';
import { runProgram } from '../runner/sandbox/run-program';
import { COUNTER_EVENTS } from '../runner/measure/perf-stat';
import { createSandbox } from '../runner/sandbox';
import { median, quantileOfSorted, sorted } from '../lib/core/stats';

const DATA_DIR = path.join(REPO_ROOT, '.data', 'bench');

interface Options {
  sizeBytes: number;
  pairs: number;
}

function parseArgs(args: string[]): Options {
  const options: Options = { sizeBytes: 64 << 20, pairs: 10 };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    switch (args[i]) {
      case '--size': {
        const bytes = value ? parseByteSize(value) : undefined;
        if (!bytes) throw new Error(`--size: "${value}" is not a size`);
        options.sizeBytes = bytes;
        i++;
        break;
      }
      case '--pairs': {
        const pairs = Number(value);
        if (!Number.isInteger(pairs) || pairs < 2)
          throw new Error(`--pairs: "${value}" is not ≥ 2`);
        options.pairs = pairs;
        i++;
        break;
      }
      default:
        throw new Error(`unknown option ${args[i]} (--size, --pairs)`);
    }
  }
  return options;
}

function describeTimes(times: number[]): string {
  const xs = sorted(times);
  const q1 = quantileOfSorted(xs, 0.25);
  const q3 = quantileOfSorted(xs, 0.75);
  return (
    `median ${median(xs).toFixed(1)} ms (min ${xs[0]!.toFixed(1)}, ` +
    `IQR ${q1.toFixed(1)}–${q3.toFixed(1)}, max ${xs[xs.length - 1]!.toFixed(1)})`
  );
}

export default async function run(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const challenge = await loadChallenge('wordcount');
  const toolchain = challenge.manifest.targets['linux-intel']!.toolchain;
  const baseline = await cachedBuild({
    challenge,
    sourceDir: challenge.templateDir,
    toolchain,
    solution: false,
    cacheRoot: path.join(DATA_DIR, 'builds'),
  });
  if (!baseline.binary) throw new Error(`the baseline did not build:\n${baseline.log}`);
  const input = await ensureInput(
    challenge,
    { seed: 'bench-perf-overhead', sizeBytes: options.sizeBytes, rareSeparators: false },
    DATA_DIR,
  );
  await warmPageCache(input.path);
  const cpu = os.cpus().length - 1;
  const sandbox = createSandbox('bubblewrap');
  const work = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-perf-overhead-'));
  // The sandbox's unprivileged user must reach the run directories made inside it.
  await chmod(work, 0o755);
  const time = async (withPerf: boolean): Promise<number> => {
    const result = await runProgram({
      sandbox,
      binary: baseline.binary!,
      input: input.path,
      workDir: work,
      limits: challenge.manifest.limits,
      wallTimeMs: challenge.manifest.limits.benchmarkRunSeconds * 1000,
      stdout: 'hash',
      cpu,
      counters: withPerf,
    });
    if (result.exitCode !== 0) throw new Error(`the baseline failed: ${result.stderr.slice(-300)}`);
    if (withPerf && result.counters['task-clock']?.status !== 'counted')
      throw new Error('nothing was counted: the comparison would be meaningless');
    return result.wallTimeMs;
  };

  console.log(
    `perf-overhead: baseline on ${(options.sizeBytes / (1 << 20)).toFixed(0)} MiB, ${options.pairs} pairs, ` +
      `CPU ${cpu}, the sandbox counting ${COUNTER_EVENTS.length} events (perf_event_open)`,
  );
  try {
    await time(false);
    await time(true);
    const without: number[] = [];
    const withPerf: number[] = [];
    for (let i = 0; i < options.pairs; i++) {
      // Alternate which goes first, so a drift within a pair favours neither.
      if (i % 2 === 0) {
        without.push(await time(false));
        withPerf.push(await time(true));
      } else {
        withPerf.push(await time(true));
        without.push(await time(false));
      }
    }
    report(options, without, withPerf);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The medians side by side, their ratio and difference, and whether it is beyond the noise. */
function report(options: Options, without: number[], withPerf: number[]): void {
  const ratio = median(withPerf) / median(without);
  const pairRatios = withPerf.map((w, i) => w / without[i]!);
  const slower = pairRatios.filter((r) => r > 1).length;
  const xs = sorted(without);
  const mid = median(xs);
  // Half the interquartile range of the runs without counting, relative: how far a median wanders.
  const noise = (quantileOfSorted(xs, 0.75) - quantileOfSorted(xs, 0.25)) / 2 / mid;
  console.log(`  without counting: ${describeTimes(without)}`);
  console.log(`  with counting: ${describeTimes(withPerf)}`);
  console.log(
    `  ratio with/without: ${ratio.toFixed(4)} (${((ratio - 1) * 100).toFixed(2)}%); ` +
      `median of pairwise ratios ${median(pairRatios).toFixed(4)}; counting slower in ${slower}/${options.pairs} pairs`,
  );
  const pairDiffs = withPerf.map((w, i) => w - without[i]!);
  console.log(
    `  difference: ${(median(withPerf) - median(without)).toFixed(1)} ms between medians, ` +
      `${median(pairDiffs).toFixed(1)} ms median pairwise`,
  );
  console.log(
    `  noise (half IQR of the runs without counting): ±${(noise * 100).toFixed(2)}% → ` +
      (Math.abs(ratio - 1) <= noise ? 'within the noise' : 'beyond the noise'),
  );
}
