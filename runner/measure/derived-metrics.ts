// Figures computed from perf counters (IPC, miss rates, frequency, CPU utilization), and the
// baseline-vs-solution table of counters and derived figures. A figure whose input is unsupported
// or not counted is null with that status: a missing counter never turns into a 0.
import type { Counter, CounterComparison, ProcessStats, Run } from '../../contracts';
import { median } from '../../lib/core/stats';
import { COUNTER_EVENTS } from './perf-stat';

export type CounterStatus = Counter['status'];

export interface DerivedMetric {
  value: number | null;
  unit: string;
  status: CounterStatus;
  /** Lowest running share of its input counters (multiplexing), in percent. */
  runningPercent: number | null;
}

interface Input {
  value: number;
  runningPercent: number | null;
}

interface Definition {
  name: string;
  unit: string;
  inputs: readonly string[];
  /** From the inputs' values (in `inputs` order); null when the figure is undefined (÷ 0). */
  compute: (values: number[], stats: ProcessStats | null) => number | null;
  /** Needs the run's wall time (from the OS accounting, not from perf). */
  needsWall?: boolean;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);
const percent = (a: number, b: number): number | null => (b === 0 ? null : (100 * a) / b);

/** task-clock in milliseconds whatever unit perf printed it in. */
function milliseconds(value: number, unit: string): number {
  switch (unit) {
    case 'ns':
    case 'nsec':
      return value / 1e6;
    case 'us':
    case 'usec':
      return value / 1e3;
    case 's':
    case 'sec':
      return value * 1e3;
    default:
      return value; // perf prints task-clock in msec
  }
}

/** Rates are percentages; IPC per cycle; frequency in GHz. In report order. */
export const DERIVED_METRICS: readonly Definition[] = [
  {
    name: 'ipc',
    unit: 'insn/cycle',
    inputs: ['instructions', 'cycles'],
    compute: ([insns, cycles]) => ratio(insns!, cycles!),
  },
  {
    name: 'branch-miss-rate',
    unit: '%',
    inputs: ['branch-misses', 'branches'],
    compute: ([misses, total]) => percent(misses!, total!),
  },
  {
    name: 'cache-miss-rate',
    unit: '%',
    inputs: ['cache-misses', 'cache-references'],
    compute: ([misses, total]) => percent(misses!, total!),
  },
  {
    name: 'l1d-miss-rate',
    unit: '%',
    inputs: ['L1-dcache-load-misses', 'L1-dcache-loads'],
    compute: ([misses, total]) => percent(misses!, total!),
  },
  {
    name: 'dtlb-miss-rate',
    unit: '%',
    inputs: ['dTLB-load-misses', 'dTLB-loads'],
    compute: ([misses, total]) => percent(misses!, total!),
  },
  {
    // Cycles per nanosecond on the CPU. Unprivileged perf counts user-mode cycles only while
    // task-clock includes time in the kernel, so a sys-heavy run reads low.
    name: 'frequency',
    unit: 'GHz',
    inputs: ['cycles', 'task-clock'],
    compute: ([cycles, taskMs]) => ratio(cycles!, taskMs! * 1e6),
  },
  {
    name: 'cpu-utilization',
    unit: '%',
    inputs: ['task-clock'],
    needsWall: true,
    compute: ([taskMs], stats) => (stats ? percent(taskMs!, stats.wallMs) : null),
  },
];

function input(counters: Record<string, Counter>, name: string): Input | CounterStatus {
  const c = counters[name];
  if (!c) return 'not-counted';
  if (c.status !== 'counted' || c.value === null)
    return c.status === 'counted' ? 'not-counted' : c.status;
  const value = name === 'task-clock' ? milliseconds(c.value, c.unit) : c.value;
  return { value, runningPercent: c.runningPercent };
}

/**
 * Derived figures of one run: unsupported when any input is unsupported, not-counted when any is
 * missing or not counted (or the figure is undefined: nothing to divide by), else counted.
 */
export function deriveMetrics(
  counters: Record<string, Counter>,
  stats: ProcessStats | null,
): Record<string, DerivedMetric> {
  const result: Record<string, DerivedMetric> = {};
  for (const def of DERIVED_METRICS) {
    const inputs = def.inputs.map((name) => input(counters, name));
    const failed = inputs.filter((i): i is CounterStatus => typeof i === 'string');
    if (failed.length || (def.needsWall && !stats)) {
      const status = failed.includes('unsupported') ? 'unsupported' : 'not-counted';
      result[def.name] = {
        value: null,
        unit: def.unit,
        status,
        runningPercent: status === 'unsupported' ? null : 0,
      };
      continue;
    }
    const counted = inputs as Input[];
    const value = def.compute(
      counted.map((i) => i.value),
      stats,
    );
    const shares = counted.map((i) => i.runningPercent).filter((p): p is number => p !== null);
    result[def.name] =
      value === null || !Number.isFinite(value)
        ? { value: null, unit: def.unit, status: 'not-counted', runningPercent: 0 }
        : {
            value,
            unit: def.unit,
            status: 'counted',
            runningPercent: shares.length ? Math.min(...shares) : null,
          };
  }
  return result;
}

interface Reading {
  value: number | null;
  unit: string;
  status: CounterStatus;
  runningPercent: number | null;
}

interface SideSummary {
  status: CounterStatus;
  value: number | null;
  unit: string;
  runningPercents: number[];
}

/**
 * One side's figure over its runs: unsupported if any run says so (the host cannot count it);
 * otherwise the median of the runs that counted it, or not-counted when none did.
 */
function summarizeSide(readings: Reading[]): SideSummary {
  const unit = readings.find((r) => r.unit)?.unit ?? '';
  if (readings.some((r) => r.status === 'unsupported'))
    return { status: 'unsupported', value: null, unit, runningPercents: [] };
  const counted = readings.filter(
    (r): r is Reading & { value: number } => r.status === 'counted' && r.value !== null,
  );
  if (!counted.length) return { status: 'not-counted', value: null, unit, runningPercents: [] };
  return {
    status: 'counted',
    value: median(counted.map((r) => r.value)),
    unit,
    runningPercents: counted.map((r) => r.runningPercent).filter((p): p is number => p !== null),
  };
}

function compare(
  name: string,
  kind: CounterComparison['kind'],
  baseline: Reading[],
  solution: Reading[],
): CounterComparison {
  const b = summarizeSide(baseline);
  const s = summarizeSide(solution);
  const status: CounterStatus =
    b.status === 'unsupported' || s.status === 'unsupported'
      ? 'unsupported'
      : b.status === 'counted' && s.status === 'counted'
        ? 'counted'
        : 'not-counted';
  const shares = [...b.runningPercents, ...s.runningPercents];
  // A side that counted keeps its figure even when the other did not (a crashed run's side).
  const shown = (side: SideSummary) => (status === 'unsupported' ? null : side.value);
  const ratioValue =
    status === 'counted' && b.value !== null && s.value !== null && b.value !== 0
      ? s.value / b.value
      : null;
  return {
    name,
    unit: b.unit || s.unit,
    kind,
    status,
    baseline: shown(b),
    solution: shown(s),
    ratio: ratioValue,
    runningPercent: shares.length ? Math.min(...shares) : null,
  };
}

/** Counter names in report order: the standard events first, then any others perf reported. */
function counterNames(runs: Run[]): string[] {
  const seen = new Set(runs.flatMap((r) => Object.keys(r.counters)));
  const standard: string[] = COUNTER_EVENTS.filter((name) => seen.has(name));
  const others = [...seen].filter((name) => !standard.includes(name)).sort();
  return [...standard, ...others];
}

/**
 * Every counter and derived figure, baseline vs solution: medians over each side's timed runs
 * (warm-ups are left out), the ratio solution / baseline, the status (unsupported when either side
 * is), and the lowest running share seen. Counters first, then derived figures.
 */
export function compareCounters(baselineRuns: Run[], solutionRuns: Run[]): CounterComparison[] {
  const baseline = baselineRuns.filter((r) => r.kind === 'timed');
  const solution = solutionRuns.filter((r) => r.kind === 'timed');
  const missing = (): Reading => ({
    value: null,
    unit: '',
    status: 'not-counted',
    runningPercent: 0,
  });
  const counterReadings = (runs: Run[], name: string): Reading[] =>
    runs.map((r) => (Object.hasOwn(r.counters, name) ? r.counters[name]! : missing()));
  const rows: CounterComparison[] = counterNames([...baseline, ...solution]).map((name) =>
    compare(name, 'counter', counterReadings(baseline, name), counterReadings(solution, name)),
  );
  if (!rows.length) return rows;
  const derived = (runs: Run[]) => runs.map((r) => deriveMetrics(r.counters, r.stats));
  const bDerived = derived(baseline);
  const sDerived = derived(solution);
  for (const def of DERIVED_METRICS) {
    rows.push(
      compare(
        def.name,
        'derived',
        bDerived.map((d) => d[def.name]!),
        sDerived.map((d) => d[def.name]!),
      ),
    );
  }
  return rows;
}
