// Top-Down level 1 (Retiring, Bad Speculation, Frontend Bound, Backend Bound) from perf's metric
// groups: Intel's TopdownL1 (tma_* metrics) and AMD Zen 4+'s PipelineL1. Hosts without either (or
// without a PMU at all, like the VMs this is developed on) get null and a reason, never zeros.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Topdown } from '../../contracts';
import { cpuVendor } from '../host/fingerprint';
import { parsePerfStatOutput, type PerfMetric } from './perf-stat';

const execFileAsync = promisify(execFile);

export const TOPDOWN_GROUPS = ['TopdownL1', 'PipelineL1'] as const;
export type TopdownGroup = (typeof TOPDOWN_GROUPS)[number];

/** The metric group that has level 1 on this vendor's CPUs (AMD: only from Zen 4 on). */
export function topdownGroupFor(vendor: string): TopdownGroup | null {
  if (vendor === 'GenuineIntel') return 'TopdownL1';
  if (vendor === 'AuthenticAMD') return 'PipelineL1';
  return null;
}

/**
 * The argv that runs `command` under `perf stat -M <group>` with CSV to `outputFile`, or null for a
 * vendor without a group. Per-process, not --topdown: that needs system-wide mode (-a), which an
 * unprivileged perf in the sandbox may not use.
 */
export function topdownArgs(
  perf: string,
  vendor: string,
  outputFile: string,
  command: string[],
): string[] | null {
  const group = topdownGroupFor(vendor);
  if (!group) return null;
  return [perf, 'stat', '-x', ',', '--no-big-num', '-o', outputFile, '-M', group, '--', ...command];
}

type Category = keyof Omit<Topdown, 'source'>;
const CATEGORIES: readonly Category[] = [
  'retiring',
  'badSpeculation',
  'frontendBound',
  'backendBound',
];

/**
 * Level-1 metric names, normalized (lower case, no `tma_`, spaces as `_`): Intel `tma_retiring`,
 * AMD `retiring`, older perf `Retiring` and --topdown's "bad speculation" all land here. Level-2
 * children (`bad_speculation_mispredicts`, `tma_heavy_operations`) do not.
 */
const LEVEL1: Record<string, Category> = {
  retiring: 'retiring',
  bad_speculation: 'badSpeculation',
  frontend_bound: 'frontendBound',
  backend_bound: 'backendBound',
};

function normalizedName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^tma_/, '')
    .replace(/[\s-]+/g, '_');
}

export type TopdownShares = Record<Category, number>;

export interface TopdownReading {
  /** Normalized: the four shares divided by their sum, so they add up to 1. */
  topdown: Topdown;
  /** The shares as perf reported them (fractions; a negative or blank value counts as 0). */
  raw: TopdownShares;
  /** Sum of the raw shares: 1 ± rounding on Intel; 1 − smt_contention on AMD. */
  rawSum: number;
  /** Other level-1 metrics of the group, as fractions (AMD's smt_contention). */
  extra: Record<string, number>;
  /** Lowest share of the run any counted event was live (multiplexing), in percent. */
  runningPercent: number | null;
}

export type TopdownParse = { ok: true; reading: TopdownReading } | { ok: false; reason: string };

function pmuOf(event: string | null): string {
  const m = event ? /^([A-Za-z0-9_.-]+)\//.exec(event) : null;
  return m?.[1] ?? '';
}

/**
 * Top-Down level 1 from perf stat's output of `-M TopdownL1` / `-M PipelineL1` (CSV or JSON, with
 * or without --metric-only). Percent metrics (perf prints them with a "%" unit) become fractions.
 * On hybrid CPUs each core type reports its own set; the first complete set is used.
 */
export function parseTopdown(text: string, source: string): TopdownParse {
  const output = parsePerfStatOutput(text);
  const sets = new Map<string, Map<string, PerfMetric>>();
  for (const metric of output.metrics) {
    const key = normalizedName(metric.name);
    if (!(key in LEVEL1) && key !== 'smt_contention') continue;
    const pmu = pmuOf(metric.event);
    const set = sets.get(pmu) ?? new Map<string, PerfMetric>();
    if (!set.has(key) || set.get(key)!.value === null) set.set(key, metric);
    sets.set(pmu, set);
  }
  if (!sets.size) {
    const hardware = Object.values(output.counters);
    const unsupported = hardware.length > 0 && hardware.every((c) => c.status !== 'counted');
    return {
      ok: false,
      reason: unsupported
        ? 'perf counted none of the metric events (unsupported on this host)'
        : 'no Top-Down level-1 metrics in perf output',
    };
  }
  const complete = [...sets.values()].find((set) =>
    Object.keys(LEVEL1).every((name) => set.has(name)),
  );
  if (!complete) {
    const seen = new Set([...sets.values()].flatMap((s) => [...s.keys()]));
    const missing = Object.keys(LEVEL1).filter((name) => !seen.has(name));
    return { ok: false, reason: `perf did not report ${missing.join(', ')}` };
  }
  const percent =
    [...complete.values()].some((m) => m.unit.includes('%')) ||
    // Old unitless output (perf --topdown) printed percentages too.
    [...complete.values()].reduce((sum, m) => sum + Math.max(0, m.value ?? 0), 0) > 1.5;
  // CSV cannot show a negative metric (perf prints its unit without a value): it is 0 here.
  const share = (m: PerfMetric | undefined) => Math.max(0, m?.value ?? 0) / (percent ? 100 : 1);
  const raw = Object.fromEntries(
    Object.entries(LEVEL1).map(([name, category]) => [category, share(complete.get(name))]),
  ) as TopdownShares;
  const rawSum = CATEGORIES.reduce((sum, c) => sum + raw[c], 0);
  if (!(rawSum > 0)) return { ok: false, reason: 'all Top-Down level-1 metrics are zero' };
  const extra: Record<string, number> = {};
  const smt = complete.get('smt_contention');
  if (smt) extra.smt_contention = share(smt);
  const shares = Object.values(output.counters)
    .filter((c) => c.status === 'counted' && c.runningPercent !== null)
    .map((c) => c.runningPercent!);
  const topdown: Topdown = {
    source,
    retiring: 0,
    badSpeculation: 0,
    frontendBound: 0,
    backendBound: 0,
  };
  for (const c of CATEGORIES) topdown[c] = raw[c] / rawSum;
  return {
    ok: true,
    reading: {
      topdown,
      raw,
      rawSum,
      extra,
      runningPercent: shares.length ? Math.min(...shares) : null,
    },
  };
}

export type TopdownSupport =
  { group: TopdownGroup; reason: null } | { group: null; reason: string };

export interface DetectTopdownOptions {
  /** CPU vendor string (default: from /proc/cpuinfo). */
  vendor?: string;
  /** Where the kernel lists PMUs (default /sys/bus/event_source/devices). */
  pmuDevicesDir?: string;
  /** Directory for the trial run's output (default: the system temp dir). */
  tmpDir?: string;
}

/** Core PMUs: `cpu` on Intel and AMD, `cpu_core`/`cpu_atom` on hybrid Intel. */
const CORE_PMUS = ['cpu', 'cpu_core', 'cpu_atom'];

/**
 * Whether this host can give Top-Down level 1, and through which group: the vendor must have one,
 * the kernel must expose a core PMU, perf must know the group for this CPU model (`perf list
 * metricgroups`), and a trial `perf stat -M` must produce the four metrics.
 */
export async function detectTopdownSupport(
  perf: string,
  options: DetectTopdownOptions = {},
): Promise<TopdownSupport> {
  const vendor = options.vendor ?? (await cpuVendor());
  const group = topdownGroupFor(vendor);
  if (!group) return { group: null, reason: `unsupported: no Top-Down metric group for ${vendor}` };

  let pmus: string[] = [];
  try {
    pmus = await readdir(options.pmuDevicesDir ?? '/sys/bus/event_source/devices');
  } catch {
    // No sysfs PMU list: treated as no PMU.
  }
  if (!pmus.some((p) => CORE_PMUS.includes(p)))
    return { group: null, reason: 'unsupported: no PMU on this host' };

  try {
    const { stdout } = await execFileAsync(perf, ['list', 'metricgroups'], { timeout: 30_000 });
    const groups = stdout.split('\n').map((l) => l.trim().split(/\s+/)[0] ?? '');
    if (!groups.includes(group))
      return {
        group: null,
        reason: `unsupported: this perf has no ${group} metric group for this CPU model`,
      };
  } catch (error) {
    return { group: null, reason: `unsupported: perf list failed (${(error as Error).message})` };
  }

  const dir = await mkdtemp(path.join(options.tmpDir ?? os.tmpdir(), 'perfjudge-topdown-'));
  try {
    const file = path.join(dir, 'topdown.csv');
    const args = topdownArgs(perf, vendor, file, ['true'])!;
    await execFileAsync(args[0]!, args.slice(1), { timeout: 30_000 });
    const parsed = parseTopdown(await readFile(file, 'utf8'), group);
    if (!parsed.ok)
      return { group: null, reason: `unsupported: trial perf stat -M ${group}: ${parsed.reason}` };
    return { group, reason: null };
  } catch (error) {
    return {
      group: null,
      reason: `unsupported: trial perf stat -M ${group} failed (${(error as Error).message})`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
