// Benchmarks of the judge itself (figures only, nothing asserted: this machine is shared and noisy).
//   npm run bench -- judge reproducibility [--size 64MiB] [--repeat 5]
//   npm run bench -- judge ladder [--size 64MiB] [--long-pairs 15]
//   npm run bench -- judge overhead [--size 64MiB]
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseByteSize, type JudgingResult } from '../contracts';
import { REPO_ROOT } from '../lib/config/env';
import { loadChallenge, type Challenge } from '../lib/challenge/load-manifest';
import { makePatch, solutionSource, writeSolutionTree } from '../lib/challenge/solution-tree';
import { cachedBuild } from '../runner/build';
import { cpuVendor } from '../runner/host/fingerprint';
import { ensureInput, warmPageCache } from '../runner/judge/inputs';
import { judge } from '../runner/judge/judge';
import { runProgram } from '../runner/judge/run-program';
import { createSandbox } from '../runner/sandbox';
import { median } from '../runner/stats';

const LADDER_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ladder');
const DATA_DIR = path.join(REPO_ROOT, '.data', 'bench');
const sandbox = createSandbox('bubblewrap');

interface Options {
  sizeBytes: number;
  repeat: number;
  longPairs: number;
}

function parseArgs(args: string[]): Options {
  const options: Options = { sizeBytes: 64 << 20, repeat: 5, longPairs: 15 };
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
      case '--repeat':
        options.repeat = Number(value);
        i++;
        break;
      case '--long-pairs':
        options.longPairs = Number(value);
        i++;
        break;
      default:
        throw new Error(`unknown option ${args[i]}`);
    }
  }
  return options;
}

async function ladderPatch(name: string): Promise<string> {
  const code = await readFile(path.join(LADDER_DIR, `${name}.cpp`), 'utf8');
  return makePatch({ 'wordcount.cpp': await solutionSource(code) });
}

async function judgeOnce(
  challenge: Challenge,
  patchText: string,
  options: Options,
): Promise<JudgingResult> {
  return judge({
    challenge,
    target: 'linux-intel',
    patchText,
    sandbox,
    dataDir: DATA_DIR,
    benchmark: { seed: 'bench-judge', sizeBytes: options.sizeBytes, rareSeparators: false },
    benchmarkSeedIsSecret: false,
    publicInput: null,
    devMode: (await cpuVendor()) !== challenge.manifest.targets['linux-intel']?.cpuVendor,
  });
}

const fmt = (x: number) => x.toFixed(3);

function describe(result: JudgingResult): string {
  const e = result.stages.measure?.estimate;
  if (!e) return `${result.verdict}: ${result.message}`;
  return `${fmt(e.speedup)} [${fmt(e.ciLow)}, ${fmt(e.ciHigh)}] ±${(e.halfWidthRel * 100).toFixed(2)}% after ${e.pairs} pairs (${e.stopReason})`;
}

/**
 * Time the judge spent beyond building and running programs: the builds, every test and timed
 * run, and the profile stage (which is only builds and untimed runs) count as work.
 */
function overhead(result: JudgingResult): { total: number; work: number } {
  const build = result.stages.build;
  const buildMs =
    (build?.solution.durationMs ?? 0) +
    (build && !build.baseline.cached ? build.baseline.durationMs : 0);
  const testMs = (result.stages.test?.cases ?? []).reduce((sum, c) => sum + c.wallMs, 0);
  const runMs = (result.stages.measure?.runs ?? []).reduce((sum, r) => sum + r.stats.wallMs, 0);
  const profileMs = result.stageDurationsMs.profile ?? 0;
  return { total: result.durationMs, work: buildMs + testMs + runMs + profileMs };
}

async function reproducibility(challenge: Challenge, options: Options): Promise<void> {
  const patch = await ladderPatch('faster-2x');
  console.log(
    `reproducibility: the faster-2x patch judged ${options.repeat} times on ${options.sizeBytes >> 20} MiB`,
  );
  const speedups: number[] = [];
  for (let i = 0; i < options.repeat; i++) {
    const result = await judgeOnce(challenge, patch, options);
    const o = overhead(result);
    console.log(
      `  #${i + 1}: ${describe(result)}; judge ${(o.total / 1000).toFixed(1)} s, overhead ${((o.total / o.work - 1) * 100).toFixed(1)}%`,
    );
    if (result.stages.measure?.estimate) speedups.push(result.stages.measure.estimate.speedup);
  }
  if (speedups.length) {
    const spread = Math.max(...speedups) / Math.min(...speedups) - 1;
    console.log(
      `  speedups ${speedups.map(fmt).join(' ')}; spread (max/min − 1) ${(spread * 100).toFixed(2)}% (target ≤ 2%)`,
    );
  }
}

/** The true ratio: many alternating runs of the two binaries, the median of the pairwise ratios. */
async function longRunRatio(challenge: Challenge, name: string, options: Options): Promise<number> {
  const toolchain = challenge.manifest.targets['linux-intel']!.toolchain;
  const cacheRoot = path.join(DATA_DIR, 'builds');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-ladder-'));
  // The sandbox user must reach the run folders made inside it.
  await chmod(dir, 0o755);
  try {
    const code = await readFile(path.join(LADDER_DIR, `${name}.cpp`), 'utf8');
    await writeSolutionTree(path.join(dir, 'tree'), {
      'wordcount.cpp': await solutionSource(code),
    });
    const solution = await cachedBuild({
      challenge,
      sourceDir: path.join(dir, 'tree'),
      toolchain,
      solution: true,
      cacheRoot,
    });
    const baseline = await cachedBuild({
      challenge,
      sourceDir: challenge.templateDir,
      toolchain,
      solution: false,
      cacheRoot,
    });
    if (!solution.binary || !baseline.binary)
      throw new Error(`${name} did not build:\n${solution.log}`);
    const input = await ensureInput(
      challenge,
      { seed: 'bench-judge', sizeBytes: options.sizeBytes, rareSeparators: false },
      DATA_DIR,
    );
    await warmPageCache(input.path);
    const time = async (binary: string) => {
      const run = await runProgram({
        sandbox,
        binary,
        input: input.path,
        workDir: dir,
        limits: challenge.manifest.limits,
        wallTimeMs: challenge.manifest.limits.benchmarkRunSeconds * 1000,
        stdout: 'hash',
        cpu: os.cpus().length - 1,
      });
      return run.wallTimeMs;
    };
    const ratios: number[] = [];
    for (let i = 0; i < options.longPairs; i++)
      ratios.push((await time(baseline.binary)) / (await time(solution.binary)));
    return median(ratios);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function ladder(challenge: Challenge, options: Options): Promise<void> {
  const rungs = ['slower-2x', 'baseline-copy', 'faster-2x', 'faster-5x'];
  console.log(
    `ladder on ${options.sizeBytes >> 20} MiB (true ratio: median of ${options.longPairs} separate alternating pairs)`,
  );
  const identical = await judgeOnce(
    challenge,
    await makePatch({ 'wordcount.cpp': await solutionSource(await baselineBody(challenge)) }),
    options,
  );
  console.log(`  baseline (identical binary): ${describe(identical)}`);
  const estimates: number[] = [];
  let covered = 0;
  for (const rung of rungs) {
    const result = await judgeOnce(challenge, await ladderPatch(rung), options);
    const truth = await longRunRatio(challenge, rung, options);
    const e = result.stages.measure?.estimate;
    const covers = e ? e.ciLow <= truth && truth <= e.ciHigh : false;
    if (covers) covered++;
    if (e) estimates.push(e.speedup);
    console.log(
      `  ${rung.padEnd(14)} judged ${describe(result)}; true ${fmt(truth)}; ${covers ? 'covered' : 'NOT covered'}`,
    );
  }
  const ordered = estimates.every((x, i) => i === 0 || estimates[i - 1]! < x);
  console.log(
    `  order ${ordered ? 'right' : 'WRONG'}; ${covered}/${rungs.length} intervals cover the true ratio`,
  );
}

async function baselineBody(challenge: Challenge): Promise<string> {
  const source = await readFile(path.join(challenge.templateDir, 'wordcount.cpp'), 'utf8');
  return source.slice(source.indexOf('#else') + '#else'.length, source.lastIndexOf('#endif'));
}

async function overheadOnly(challenge: Challenge, options: Options): Promise<void> {
  const result = await judgeOnce(challenge, await ladderPatch('faster-2x'), options);
  const o = overhead(result);
  console.log(
    `overhead: judge wall ${(o.total / 1000).toFixed(2)} s vs build + runs ${(o.work / 1000).toFixed(2)} s: ${((o.total / o.work - 1) * 100).toFixed(1)}% extra (target ≤ 5%)`,
  );
  console.log(
    `  stages: ${Object.entries(result.stageDurationsMs)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`)
      .join(', ')}`,
  );
}

export default async function run(args: string[]): Promise<void> {
  const [mode = 'reproducibility', ...rest] = args;
  const options = parseArgs(rest);
  const challenge = await loadChallenge('wordcount');
  if (mode === 'reproducibility') await reproducibility(challenge, options);
  else if (mode === 'ladder') await ladder(challenge, options);
  else if (mode === 'overhead') await overheadOnly(challenge, options);
  else throw new Error(`unknown mode ${mode} (reproducibility, ladder, overhead)`);
}
