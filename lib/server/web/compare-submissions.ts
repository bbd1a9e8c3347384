// "Compare with my previous submission": two submissions' figures side by side per target, with the
// change from the other one to this one. Pure: the page gives it two submission views.
import type { JudgingResult } from '../../../contracts';
import type { JudgingView } from '../db/submissions/get-submission-view';

export interface ComparisonRow {
  /** What is compared ("speedup", "solution median time", a counter's name). */
  label: string;
  unit: 'x' | 'ms' | 'bytes' | 'count' | string;
  /** The figure of the submission being viewed, and of the one it is compared with. */
  current: number | null;
  other: number | null;
  /** current ÷ other when both exist and other is not 0. */
  ratio: number | null;
  /** For speedups and scores higher is better; for times, memory and counts lower is. */
  higherIsBetter: boolean;
}

export interface TargetComparison {
  target: string;
  rows: ComparisonRow[];
}

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? null) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

function row(
  label: string,
  unit: string,
  current: number | null,
  other: number | null,
  higherIsBetter = false,
): ComparisonRow {
  return {
    label,
    unit,
    current,
    other,
    ratio: current !== null && other !== null && other !== 0 ? current / other : null,
    higherIsBetter,
  };
}

/** The figures one judging contributes, by label (null where it has none). */
function figures(j: JudgingView | undefined): {
  result: JudgingResult | null;
  speedup: number | null;
  solutionMs: number | null;
  peakRss: number | null;
  instructions: number | null;
} {
  const r = j?.result ?? null;
  const timed = r?.stages.measure?.runs.filter((x) => x.kind === 'timed' && x.side === 'solution');
  return {
    result: r,
    speedup: j?.speedup ?? null,
    solutionMs: r?.stages.measure?.solution?.medianMs ?? null,
    peakRss: timed?.length ? median(timed.map((x) => x.stats.maxRssBytes)) : null,
    instructions: r?.stages.profile?.deterministic?.solution.instructions ?? null,
  };
}

export function compareSubmissions(
  current: readonly JudgingView[],
  other: readonly JudgingView[],
): TargetComparison[] {
  const targets = [...new Set([...current, ...other].map((j) => j.target))].sort();
  return targets.map((target) => {
    const a = figures(current.find((j) => j.target === target));
    const b = figures(other.find((j) => j.target === target));
    const rows = [
      row('speedup', 'x', a.speedup, b.speedup, true),
      row('solution median time', 'ms', a.solutionMs, b.solutionMs),
      row('peak memory (RSS, median run)', 'bytes', a.peakRss, b.peakRss),
      row('instructions (cachegrind)', 'count', a.instructions, b.instructions),
    ];
    // Counters both judgings counted, solution side.
    const counted = (r: JudgingResult | null) =>
      new Map(
        (r?.stages.measure?.counters ?? [])
          .filter((c) => c.status === 'counted' && c.solution !== null)
          .map((c) => [c.name, c] as const),
      );
    const ca = counted(a.result);
    const cb = counted(b.result);
    for (const [name, c] of ca) {
      const o = cb.get(name);
      if (o) rows.push(row(name, c.unit || 'count', c.solution, o.solution));
    }
    return { target, rows };
  });
}
