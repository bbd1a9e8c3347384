// Shapes a judging result into what the submission page draws: logs cut to a size a browser can
// hold, and the small arrays the chart components (client side) receive instead of the result.
import type { MemoryProfile, Run, Topdown } from '../../../contracts';

/** Bytes of a log shown inline: the head holds the first compiler error, the tail how it ended. */
export const LOG_HEAD_CHARS = 48 * 1024;
export const LOG_TAIL_CHARS = 16 * 1024;

export interface TruncatedText {
  text: string;
  truncated: boolean;
  totalChars: number;
  omittedChars: number;
}

export function truncateText(
  text: string,
  head = LOG_HEAD_CHARS,
  tail = LOG_TAIL_CHARS,
): TruncatedText {
  if (text.length <= head + tail)
    return { text, truncated: false, totalChars: text.length, omittedChars: 0 };
  const omitted = text.length - head - tail;
  return {
    text: `${text.slice(0, head)}\n\n… ${omitted.toLocaleString('en-US')} characters omitted: see the full log …\n\n${text.slice(text.length - tail)}`,
    truncated: true,
    totalChars: text.length,
    omittedChars: omitted,
  };
}

export interface RunPoint {
  pair: number;
  baseline: number | null;
  solution: number | null;
}

/** Wall time of each timed run by pair number (warm-ups are not timed and left out). */
export function runsChartData(runs: Run[]): RunPoint[] {
  const byPair = new Map<number, RunPoint>();
  for (const run of runs) {
    if (run.kind !== 'timed' || run.pair === null) continue;
    const point = byPair.get(run.pair) ?? { pair: run.pair + 1, baseline: null, solution: null };
    point[run.side] = Number(run.stats.wallMs.toFixed(3));
    byPair.set(run.pair, point);
  }
  return [...byPair.values()].sort((a, b) => a.pair - b.pair);
}

export interface MemoryPoint {
  tMs: number;
  rssMiB: number;
}

export function memoryChartData(profile: MemoryProfile): MemoryPoint[] {
  return profile.points.map((p) => ({
    tMs: Number(p.tMs.toFixed(2)),
    rssMiB: Number((p.rssBytes / 1048576).toFixed(3)),
  }));
}

export interface TopdownBar {
  side: 'baseline' | 'solution';
  retiring: number;
  badSpeculation: number;
  frontendBound: number;
  backendBound: number;
}

/** Shares in percent, one bar per side. */
export function topdownChartData(topdown: { baseline: Topdown; solution: Topdown }): TopdownBar[] {
  const pct = (x: number) => Number((x * 100).toFixed(1));
  return (['baseline', 'solution'] as const).map((side) => ({
    side,
    retiring: pct(topdown[side].retiring),
    badSpeculation: pct(topdown[side].badSpeculation),
    frontendBound: pct(topdown[side].frontendBound),
    backendBound: pct(topdown[side].backendBound),
  }));
}

/** Words for the measure stage's stop reason. */
export function stopReasonText(reason: 'precise' | 'budget' | 'identical-binaries'): string {
  switch (reason) {
    case 'precise':
      return 'stopped when the interval reached the target precision';
    case 'budget':
      return 'stopped at the run budget (the interval may be wider than the target precision)';
    case 'identical-binaries':
      return 'the solution compiles to the baseline’s machine code: 1.00× without timing';
  }
}

/** A compiler's (or linker's) error line: clang/gcc "file:1:2: error:", "fatal error:", MSVC "error C2065:", ld. */
const ERROR_LINE =
  /(?:^|:\s?)(?:fatal )?error(?: [A-Z]+\d+)?:|^\S*ld(?:\.lld)?: error|undefined reference to|^CMake Error/i;

export interface LogExcerpt {
  /** The lines from just before the first error on, at most `lines` of them. */
  text: string;
  /** 1-based line of the first error in the whole log. */
  line: number;
}

/**
 * Where a failed build's log should open: the compiler's first error with two lines of context
 * before it, not CMake's configure chatter. A compiler error is preferred to a CMake one (CMake
 * reports the compiler's failure again after it). Null when no line looks like an error.
 */
export function firstCompilerError(log: string, lines = 30): LogExcerpt | null {
  const all = log.split('\n');
  let at = all.findIndex((l) => ERROR_LINE.test(l) && !/^CMake Error/i.test(l));
  if (at < 0) at = all.findIndex((l) => ERROR_LINE.test(l));
  if (at < 0) return null;
  const from = Math.max(0, at - 2);
  return { text: all.slice(from, from + lines).join('\n'), line: at + 1 };
}

/** Each note once, in first-seen order, leaving out the ones already shown elsewhere. */
export function uniqueNotes(notes: readonly string[], shown: Iterable<string> = []): string[] {
  const seen = new Set(shown);
  const out: string[] = [];
  for (const n of notes) {
    if (seen.has(n)) continue;
    seen.add(n);
    out.push(n);
  }
  return out;
}
