// The bench ladder: real single-threaded wordcount solutions, each named by the speedup measured
// directly (hyperfine, outside the judge; bench/ladder/README.md has the command, the figures and
// the host's load), with byte-identical output. bench/judge.ts and bench/final.ts judge them.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePatch, solutionSource } from '../../lib/challenge/solution-tree';

export const LADDER_DIR = path.dirname(fileURLToPath(import.meta.url));

export interface LadderStep {
  /** The file bench/ladder/<id>.cpp. */
  id: string;
  /**
   * Baseline time / its time at 32 MiB: the ratio of the medians of interleaved direct runs (CPU
   * time, user + sys: the host was too busy for wall time; bench/ladder/README.md). The copy is 1
   * by construction.
   */
  expected: number;
}

/** Slowest first. */
export const LADDER: readonly LadderStep[] = [
  { id: '0.6x-two-passes', expected: 0.64 },
  { id: 'baseline-copy', expected: 1 },
  { id: '1.1x-whole-file-views', expected: 1.05 },
  { id: '1.3x-open-addressing', expected: 1.29 },
  { id: '2.8x-mmap-flat-table', expected: 2.82 },
];

/** The step judged by `bench judge reproducibility` and `overhead`: a modest, realistic patch. */
export const TYPICAL_STEP = '1.1x-whole-file-views';

export function ladderStep(id: string): LadderStep {
  const step = LADDER.find((s) => s.id === id);
  if (!step) throw new Error(`no ladder step ${id} (${LADDER.map((s) => s.id).join(', ')})`);
  return step;
}

/** The step's source: the body of the template's SOLUTION branch. */
export async function ladderCode(id: string): Promise<string> {
  return readFile(path.join(LADDER_DIR, `${ladderStep(id).id}.cpp`), 'utf8');
}

export async function ladderPatch(id: string): Promise<string> {
  return makePatch({ 'wordcount.cpp': await solutionSource(await ladderCode(id)) });
}
