// `perf stat` around a timed run: the event list, the command prefix and a parser for its output
// (CSV with -x, by default; JSON lines with -j). A counter the host cannot count is 'unsupported'
// and one that never ran is 'not-counted': neither is ever reported as zero.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { COUNTER_NAMES, countersOfKind, type Counter } from '../../contracts';

const execFileAsync = promisify(execFile);

/** Software events every Linux kernel counts, with or without a hardware PMU. */
export const SOFTWARE_EVENTS = countersOfKind('software');

/** Hardware events: counted where the host has a PMU, `<not supported>` elsewhere (VMs). */
export const HARDWARE_EVENTS = countersOfKind('hardware');

/**
 * Everything a timed run counts, in the order reports list them. Timed runs count them through
 * the sandbox (`SandboxRequest.counters`, perf_event_open in its trusted init; no perf binary):
 * what the host cannot count is `unsupported`. Where the PMU has fewer counters than events, the
 * kernel multiplexes; counts are scaled and the share of the run each was live is runningPercent.
 */
export const COUNTER_EVENTS = COUNTER_NAMES;

/** The argv that runs `command` under perf stat, writing CSV to `outputFile`. */
export function perfStatArgs(
  perf: string,
  events: readonly string[],
  outputFile: string,
  command: string[],
): string[] {
  return [
    perf,
    'stat',
    '-x',
    ',',
    '--no-big-num',
    '-o',
    outputFile,
    '-e',
    events.join(','),
    '--',
    ...command,
  ];
}

/** A figure perf computed itself (its "shadow" metrics, or a metric group's metrics with -M). */
export interface PerfMetric {
  /** The metric's name ("tma_retiring", "insn per cycle", "CPUs utilized"). */
  name: string;
  /** Its value; null when perf printed the unit without a value (a negative result, in CSV). */
  value: number | null;
  /** "%" for metrics perf scales to percent, otherwise empty. */
  unit: string;
  /** The counter whose line carried it (perf attaches a metric to one of its events), if any. */
  event: string | null;
}

export interface PerfStatOutput {
  format: 'csv' | 'json';
  counters: Record<string, Counter>;
  metrics: PerfMetric[];
}

/** Core PMUs of hybrid Intel CPUs: perf counts each event once per core type. */
const HYBRID_PMUS = /^cpu_(core|atom|lowpower)$/;
/** perf's event modifiers (user/kernel/hypervisor/host/guest/precise/pinned/exclusive/…). */
const MODIFIERS = /:[ukhIGHpPSDWebR]+$/;

export interface EventName {
  /** The key a counter is reported under. */
  key: string;
  /** For a hybrid core PMU's copy (`cpu_core/cycles/`): the plain event it is a part of. */
  hybridOf: string | null;
}

/**
 * Names an event the way reports do: without privilege modifiers (unprivileged perf says
 * `task-clock:u`), hybrid copies as `cpu_core/cycles/` (merged into `cycles` by the parser), and a
 * raw PMU event as `pmu/terms/`.
 */
export function normalizeEventName(raw: string): EventName {
  let name = raw.trim();
  // perf --no-merge writes "event [pmu]".
  const bracket = /^(.*\S)\s+\[([^\]]+)\]$/.exec(name);
  let pmu: string | null = null;
  if (bracket) {
    name = bracket[1]!;
    pmu = bracket[2]!;
  }
  const slashed = /^([A-Za-z0-9_.-]+)\/(.*)\/([A-Za-z]*)$/.exec(name);
  if (slashed) {
    pmu = slashed[1]!;
    name = slashed[2]!;
  }
  name = name.replace(MODIFIERS, '');
  if (pmu === null) return { key: name, hybridOf: null };
  const plain = /^[A-Za-z0-9_.-]+$/.test(name);
  if (HYBRID_PMUS.test(pmu) && plain) return { key: `${pmu}/${name}/`, hybridOf: name };
  return { key: `${pmu}/${name}/`, hybridOf: null };
}

const NOT_SUPPORTED = '<not supported>';
const NOT_COUNTED = '<not counted>';

function toNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  const t = text.trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

function clampPercent(n: number | null): number | null {
  return n === null ? null : Math.min(100, Math.max(0, n));
}

function makeCounter(value: string, unit: string, runningPercent: number | null): Counter | null {
  const v = value.trim();
  if (v === NOT_SUPPORTED)
    return { value: null, unit, status: 'unsupported', runningPercent: null };
  // Never ran: it counted during none of the run, whatever perf prints for its share.
  if (v === NOT_COUNTED) return { value: null, unit, status: 'not-counted', runningPercent: 0 };
  const n = toNumber(v);
  if (n === null) return null;
  // Multiplexed counters are scaled by perf already (value = raw × enabled / running).
  return { value: n, unit, status: 'counted', runningPercent: clampPercent(runningPercent) };
}

/** "%  tma_retiring" → {unit "%", name "tma_retiring"}; "insn per cycle" → {unit "", name …}. */
function splitMetricUnit(text: string): { name: string; unit: string } {
  const t = text.trim();
  const gap = t.indexOf('  ');
  if (gap > 0) return { unit: t.slice(0, gap).trim(), name: t.slice(gap).trim() };
  return { unit: '', name: t };
}

function metricFrom(valueText: string, unitText: string, event: string | null): PerfMetric | null {
  if (!unitText.trim()) return null;
  const { name, unit } = splitMetricUnit(unitText);
  return { name, unit, value: toNumber(valueText), event };
}

class Collector {
  readonly counters: Record<string, Counter> = {};
  readonly metrics: PerfMetric[] = [];
  private readonly hybridParts = new Map<string, string[]>();

  add(rawEvent: string, counter: Counter): string {
    const { key, hybridOf } = normalizeEventName(rawEvent);
    // The file sits where the untrusted run could write: a name must not reach the prototype.
    if (key === '__proto__') return key;
    // Later lines for the same event win (perf -r repeats nothing, but interval output would).
    this.counters[key] = counter;
    if (hybridOf !== null) {
      const parts = this.hybridParts.get(hybridOf) ?? [];
      if (!parts.includes(key)) parts.push(key);
      this.hybridParts.set(hybridOf, parts);
    }
    return key;
  }

  addMetric(metric: PerfMetric | null): void {
    if (metric) this.metrics.push(metric);
  }

  /**
   * A task counted on a hybrid CPU gets one counter per core type; the plain name holds their sum
   * (each part counted its share of the run), so reports and derived metrics need not know.
   */
  finish(format: PerfStatOutput['format']): PerfStatOutput {
    for (const [plain, keys] of this.hybridParts) {
      if (this.counters[plain]) continue;
      const parts = keys.map((k) => this.counters[k]!);
      const counted = parts.filter((p) => p.status === 'counted' && p.value !== null);
      if (counted.length) {
        const shares = counted.map((p) => p.runningPercent).filter((p): p is number => p !== null);
        this.counters[plain] = {
          value: counted.reduce((sum, p) => sum + p.value!, 0),
          unit: counted[0]!.unit,
          status: 'counted',
          runningPercent: shares.length ? Math.min(...shares) : null,
        };
      } else {
        const unsupported = parts.every((p) => p.status === 'unsupported');
        this.counters[plain] = {
          value: null,
          unit: parts[0]?.unit ?? '',
          status: unsupported ? 'unsupported' : 'not-counted',
          runningPercent: unsupported ? null : 0,
        };
      }
    }
    return { format, counters: this.counters, metrics: this.metrics };
  }
}

/** Prefix columns of --metric-only headers (interval time, aggregation ids): not metrics. */
const METRIC_ONLY_PREFIXES = new Set(['time', 'core', 'cpus', 'socket', 'die', 'cpu', 'node']);
const METRIC_ONLY_PREFIX_RE = /^(cache|comm-pid)$/;

function isCounterValue(text: string): boolean {
  const t = text.trim();
  return t === NOT_SUPPORTED || t === NOT_COUNTED || toNumber(t) !== null;
}

/**
 * The event field, which may itself contain commas (`cpu/event=0x3c,umask=0x0/u`: perf does not
 * quote): fields are joined until the PMU's slashes balance.
 */
function takeEvent(fields: string[], start: number): { event: string; next: number } {
  let end = start;
  let event = fields[start] ?? '';
  while ((event.split('/').length - 1) % 2 === 1 && end + 1 < fields.length) {
    end++;
    event += `,${fields[end]}`;
  }
  return { event, next: end + 1 };
}

/**
 * Parses perf stat's CSV (-x,), perf 6.x layouts:
 * - counter lines `value,unit,event[,cgroup][,variance%],run-time,percent-running,metric,metric-unit`
 *   (value may be `<not supported>` / `<not counted>`; metric columns may be empty);
 * - metric continuation lines (more metrics on the same event), whose leading columns are empty:
 *   `,,,,,value,unit` (perf ≥ 6.2) or `,,,,value,unit` (6.1);
 * - `--metric-only`: a header line of metric units, then lines of values in the same columns.
 * Comment lines (#) and blank lines are skipped; so are lines that fit none of these.
 */
export function parsePerfStatCsvOutput(text: string): PerfStatOutput {
  const out = new Collector();
  let lastEvent: string | null = null;
  let metricOnlyHeader: string[] | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const fields = line.split(',');
    const first = fields[0] ?? '';
    if (metricOnlyHeader && isCounterValue(first)) {
      metricOnlyHeader.forEach((header, i) => {
        const h = header.trim();
        if (!h || METRIC_ONLY_PREFIXES.has(h) || METRIC_ONLY_PREFIX_RE.test(h)) return;
        out.addMetric(metricFrom(fields[i] ?? '', h, null));
      });
      continue;
    }
    if (first.trim() === '') {
      // Continuation: another metric of the event on the line above.
      if (fields.length < 3) continue;
      out.addMetric(
        metricFrom(fields[fields.length - 2] ?? '', fields[fields.length - 1] ?? '', lastEvent),
      );
      continue;
    }
    if (!isCounterValue(first)) {
      // Only a --metric-only header starts with a word.
      metricOnlyHeader = fields;
      continue;
    }
    if (fields.length < 3) continue;
    const unit = (fields[1] ?? '').trim();
    const { event, next } = takeEvent(fields, 2);
    if (!event.trim()) continue;
    let rest = fields.slice(next);
    // A cgroup column (-G) and a variance column (-r N) may precede run-time.
    while (rest.length && toNumber(rest[0]) === null && !/%$/.test(rest[0]!.trim()))
      rest = rest.slice(1);
    if (rest.length && /^[\d.]+%$/.test(rest[0]!.trim())) rest = rest.slice(1);
    const counter = makeCounter(first, unit, toNumber(rest[1]));
    if (!counter) continue;
    lastEvent = out.add(event, counter);
    if (rest.length >= 4) out.addMetric(metricFrom(rest[2]!, rest.slice(3).join(','), lastEvent));
  }
  return out.finish('csv');
}

/** Counters only, from CSV output (what a timed run records). */
export function parsePerfStatCsv(text: string): Record<string, Counter> {
  return parsePerfStatCsvOutput(text).counters;
}

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return '';
}

/**
 * Parses perf stat's JSON output (-j, one object per line): counter objects
 * `{"counter-value", "unit", "event", "event-runtime", "pcnt-running", "metric-value", "metric-unit"}`
 * (metric-value is a number in perf 6.1, a string later), continuation objects holding only a
 * metric, and --metric-only objects (`{"%  tma_retiring" : "36.4", …}`, perf ≥ 6.5).
 */
export function parsePerfStatJsonOutput(text: string): PerfStatOutput {
  const out = new Collector();
  let lastEvent: string | null = null;
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    // perf 6.1 starts a continuation metric without its opening brace.
    if (line.startsWith('"metric-value"')) line = `{${line}`;
    if (!line.startsWith('{')) continue;
    let obj: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) continue;
      obj = parsed as Record<string, unknown>;
    } catch {
      continue;
    }
    const metric = () =>
      metricFrom(jsonText(obj['metric-value']), jsonText(obj['metric-unit']), lastEvent);
    if ('counter-value' in obj && typeof obj.event === 'string') {
      const pcnt = obj['pcnt-running'];
      const counter = makeCounter(
        jsonText(obj['counter-value']),
        jsonText(obj.unit),
        typeof pcnt === 'number' ? pcnt : toNumber(jsonText(pcnt)),
      );
      if (!counter) continue;
      lastEvent = out.add(obj.event, counter);
      out.addMetric(metric());
    } else if ('metric-unit' in obj) {
      out.addMetric(metric());
    } else {
      for (const [key, value] of Object.entries(obj)) {
        if (key === 'interval' || METRIC_ONLY_PREFIXES.has(key) || METRIC_ONLY_PREFIX_RE.test(key))
          continue;
        if (typeof value === 'string' || typeof value === 'number')
          out.addMetric(metricFrom(jsonText(value), key, null));
      }
    }
  }
  return out.finish('json');
}

/** Parses perf stat output in either format (JSON when its first data line is an object). */
export function parsePerfStatOutput(text: string): PerfStatOutput {
  const firstData = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('#'));
  return firstData?.startsWith('{') ? parsePerfStatJsonOutput(text) : parsePerfStatCsvOutput(text);
}

let perfPath: Promise<string | null> | undefined;

/** The perf binary when it works on this host (it counts at least task-clock), else null. */
export function findPerf(): Promise<string | null> {
  perfPath ??= (async () => {
    for (const candidate of ['/usr/bin/perf', '/usr/local/bin/perf']) {
      try {
        await execFileAsync(candidate, ['stat', '-x', ',', '-e', 'task-clock', 'true'], {
          timeout: 10_000,
        });
        return candidate;
      } catch {
        // Missing, or not allowed to count here (perf_event_paranoid).
      }
    }
    return null;
  })();
  return perfPath;
}
