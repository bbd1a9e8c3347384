// The bench ladder: real single-threaded wordcount solutions, each named by the speedup measured
// directly (hyperfine, outside the judge; bench/ladder/README.md has the command, the figures and
// the host's load), with byte-identical output. bench/judge.ts and bench/final.ts judge them.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureInput, warmPageCache } from '../../lib/core/challenge/inputs';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import {
  makePatch,
  solutionSource,
  writeSolutionTree,
  type TreeChanges,
} from '../../lib/core/challenge/solution-tree';
import { cachedBuild } from '../../runner/build';
import type { Sandbox } from '../../runner/sandbox';
import { runProgram } from '../../runner/sandbox/run-program';

export const LADDER_DIR = path.dirname(fileURLToPath(import.meta.url));

export interface LadderStep {
  /** The file bench/ladder/<id>.cpp. */
  id: string;
  /**
   * Baseline time / its time at 32 MiB: the ratio of the medians of interleaved direct runs (CPU
   * time, user + sys: the host was too busy for wall time; bench/ladder/README.md). The copy is 1
   * by construction. Each was measured beside the baseline on a busy host: compare a step with the
   * anchors measured in the same run (the README), not across runs.
   */
  expected: number;
  /**
   * The step also replaces wordcount.hpp with bench/ladder/<id>.hpp: it returns its own result
   * type (the driver prints any range of elements with `word` and `count`), as several 2022
   * solutions did.
   */
  header?: boolean;
  /**
   * Why the step is judged only on Linux targets: it calls POSIX or Linux (`mmap`, `MAP_POPULATE`),
   * so a Windows target's build refuses it (BUILD_ERROR), or it relies on text mode reading every
   * byte (a Windows read stops at Ctrl-Z: WRONG_ANSWER). Absent: standard C++ only, read in binary
   * mode, judged on every target.
   */
  posixOnly?: string;
}

const MAPPED = 'maps the file with POSIX mmap (sys/mman.h)';
const TEXT_MODE =
  'opens the input in text mode, which on Windows ends at byte 0x1A (WRONG_ANSWER on separators/other-control-bytes)';

/** Slowest first. */
export const LADDER: readonly LadderStep[] = [
  { id: '0.6x-two-passes', expected: 0.64, posixOnly: TEXT_MODE },
  { id: 'baseline-copy', expected: 1, posixOnly: TEXT_MODE },
  { id: '1.1x-whole-file-views', expected: 1.05 },
  { id: '1.3x-open-addressing', expected: 1.29 },
  // 2.89× beside 2.8x-mmap-flat-table's 2.96×: on that step's 2.82× footing, 2.76× (as fast within
  // the noise; the README). Standard C++ only: the Windows target's step of the cost bench.
  { id: '2.8x-read-flat-table', expected: 2.76 },
  { id: '2.8x-mmap-flat-table', expected: 2.82, posixOnly: MAPPED },
  { id: '5.5x-prefetched-slots', expected: 5.47, posixOnly: MAPPED },
  { id: '8.1x-simd-views', expected: 8.08, header: true, posixOnly: MAPPED },
  { id: '14.0x-radix-word-pool', expected: 13.96, header: true, posixOnly: MAPPED },
];

/** The step judged by `bench judge reproducibility` and `overhead`: a modest, realistic patch. */
export const TYPICAL_STEP = '1.1x-whole-file-views';

export function ladderStep(id: string): LadderStep {
  const step = LADDER.find((s) => s.id === id);
  if (!step) throw new Error(`no ladder step ${id} (${LADDER.map((s) => s.id).join(', ')})`);
  return step;
}

/**
 * The step, when it can be judged on a target of this OS; otherwise an error that says why not
 * and names the steps that can.
 */
export function ladderStepFor(id: string, target: string, os: 'linux' | 'windows'): LadderStep {
  const step = ladderStep(id);
  if (os !== 'linux' && step.posixOnly) {
    const portable = LADDER.filter((s) => !s.posixOnly).map((s) => s.id);
    throw new Error(
      `ladder step ${id} cannot be judged on ${target} (${os}): it ${step.posixOnly}. ` +
        `Steps judged on every target: ${portable.join(', ')}`,
    );
  }
  return step;
}

/** The step's source: the body of the template's SOLUTION branch. */
export async function ladderCode(id: string): Promise<string> {
  return readFile(path.join(LADDER_DIR, `${ladderStep(id).id}.cpp`), 'utf8');
}

/** The files the step changes in the template. */
export async function ladderChanges(id: string): Promise<TreeChanges> {
  const changes: TreeChanges = { 'wordcount.cpp': await solutionSource(await ladderCode(id)) };
  if (ladderStep(id).header)
    changes['wordcount.hpp'] = await readFile(path.join(LADDER_DIR, `${id}.hpp`), 'utf8');
  return changes;
}

export async function ladderPatch(id: string): Promise<string> {
  return makePatch(await ladderChanges(id));
}

/** A ladder step built beside the baseline, with the input ready: times either binary on a CPU. */
export interface PreparedStep {
  /** Wall milliseconds of one run of the baseline or of the step, pinned to `cpu`. */
  time(side: 'baseline' | 'solution', cpu: number): Promise<number>;
  close(): Promise<void>;
}

export async function prepareLadderStep(opts: {
  challenge: Challenge;
  id: string;
  sizeBytes: number;
  sandbox: Sandbox;
  dataDir: string;
}): Promise<PreparedStep> {
  const { challenge, sandbox } = opts;
  const toolchain = challenge.manifest.targets['linux-intel']!.toolchain;
  const cacheRoot = path.join(opts.dataDir, 'builds');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-ladder-'));
  // The sandbox user must reach the run folders made inside it.
  await chmod(dir, 0o755);
  try {
    await writeSolutionTree(path.join(dir, 'tree'), await ladderChanges(opts.id));
    const build = (sourceDir: string, solution: boolean) =>
      cachedBuild({ challenge, sourceDir, toolchain, solution, cacheRoot });
    const solution = await build(path.join(dir, 'tree'), true);
    const baseline = await build(challenge.templateDir, false);
    if (!solution.binary || !baseline.binary)
      throw new Error(`${opts.id} did not build:\n${solution.log}`);
    const binaries = { baseline: baseline.binary, solution: solution.binary };
    const input = await ensureInput(
      challenge,
      { seed: 'bench-judge', sizeBytes: opts.sizeBytes, rareSeparators: false },
      opts.dataDir,
    );
    await warmPageCache(input.path);
    return {
      time: async (side, cpu) => {
        const run = await runProgram({
          sandbox,
          binary: binaries[side],
          input: input.path,
          workDir: dir,
          limits: challenge.manifest.limits,
          wallTimeMs: challenge.manifest.limits.benchmarkRunSeconds * 1000,
          stdout: 'hash',
          cpu,
        });
        return run.wallTimeMs;
      },
      close: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
