// Parser for the CSV report of AMD uProf's command-line tool (`AMDuProfCLI collect -e … --` then
// `AMDuProfCLI report -i <session>`, which writes <session>/report.csv). The report is untrusted
// input (written by a tool that profiled untrusted code, and a program can name itself anything):
// it is size-limited, never throws, and anything it does not state plainly leaves the counter
// 'unsupported' — never 0 — with a note saying why.
//
// Layout this follows (no real report.csv was available to record; see tests/fixtures/uprof/):
// - a "Monitored Events:,Name,Interval,Unitmask,User,OS" header, then one row per event
//   (`,CYCLES_NOT_IN_HALT,250000,…`): the header text is the PROFILE_SAMPLING_EVENTS constant of
//   AMD's CodeXL/uProf CPU profiling CLI source (Report.h), event names are uProf's predefined ones;
// - a process table whose header row starts with PROCESS (then PID and one column per event,
//   OVERVIEW_SECTION_PROCESS in the same source), one row per process, values = samples.
// uProf's CLI samples (event-based profiling): a count here is samples × the event's interval, an
// estimate, not an exact count like perf_event_open's; the notes say so.
import { z } from 'zod';
import type { Counter } from '../../contracts';
import { unsupportedCounters } from './unsupported-counters';

/** A real report for one short run is a few hundred KiB; anything much bigger is not one. */
export const MAX_REPORT_BYTES = 4 * 1024 * 1024;
const MAX_LINES = 50_000;
const MAX_CELLS = 256;

/** uProf's predefined event names → perfjudge's (perf's) counter names. task-clock is not uProf's. */
export const UPROF_EVENT_TO_COUNTER: Readonly<Record<string, string>> = Object.freeze({
  CYCLES_NOT_IN_HALT: 'cycles',
  RETIRED_INST: 'instructions',
  RETIRED_BR_INST: 'branches',
  RETIRED_BR_INST_MISP: 'branch-misses',
  L1_DC_ACCESSES_ALL: 'L1-dcache-loads',
  L1_DC_MISSES: 'L1-dcache-load-misses',
  L2_CACHE_ACCESS_FROM_L1_DC_MISS: 'cache-references',
  L2_CACHE_MISS_FROM_L1_DC_MISS: 'cache-misses',
  L1_DTLB_MISS: 'dTLB-load-misses',
});

export interface UprofParse {
  counters: Record<string, Counter>;
  notes: string[];
}

const eventNameSchema = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/);
const intervalSchema = z.coerce.number().int().positive().max(1e12);
/** Sample counts: plain digits, possibly with thousands separators (quoted in CSV). */
const samplesSchema = z
  .string()
  .regex(/^\d{1,15}(,\d{3})*$|^\d{1,18}$/)
  .transform((s) => Number(s.replace(/,/g, '')));

/** One CSV line (RFC 4180 quoting, no multi-line fields: uProf writes none). */
function splitCsvLine(line: string): string[] | null {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell.trim());
      cell = '';
      if (cells.length > MAX_CELLS) return null;
    } else cell += c;
  }
  if (quoted) return null;
  cells.push(cell.trim());
  return cells;
}

/** The base name of a Windows or POSIX path, lower-cased (Windows names are case-insensitive). */
function baseName(p: string): string {
  return (p.split(/[\\/]/).pop() ?? '').toLowerCase();
}

function failed(names: readonly string[], note: string): UprofParse {
  return { counters: unsupportedCounters(names), notes: [note] };
}

/**
 * Counters of `program` (its file name, e.g. `solution.exe`) for the requested `names` from a
 * report.csv. Every name uProf did not report for that process stays 'unsupported'.
 */
export function parseUprofReport(
  input: string | Buffer,
  program: string,
  names: readonly string[],
): UprofParse {
  try {
    return parse(input, program, names);
  } catch (error) {
    // The parser is written not to throw; this is the guarantee if it ever does.
    return failed(names, `uProf report not parsed: ${String(error).slice(0, 200)}`);
  }
}

function parse(input: string | Buffer, program: string, names: readonly string[]): UprofParse {
  const bytes = typeof input === 'string' ? Buffer.byteLength(input) : input.length;
  if (bytes > MAX_REPORT_BYTES)
    return failed(names, `uProf report too large (${bytes} bytes > ${MAX_REPORT_BYTES})`);
  const text = (typeof input === 'string' ? input : input.toString('utf8')).replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/);
  if (lines.length > MAX_LINES) return failed(names, 'uProf report has too many lines');

  // Map, not object: an event or process called __proto__ must not reach a prototype.
  const intervals = new Map<string, number>();
  let processHeader: string[] | null = null;
  const processRows: string[][] = [];
  let inEvents = false;
  let inProcesses = false;
  for (const line of lines) {
    const cells = splitCsvLine(line);
    if (!cells) return failed(names, 'uProf report has a malformed CSV line');
    const first = cells[0] ?? '';
    if (first === 'Monitored Events:') {
      inEvents = true;
      continue;
    }
    if (inEvents) {
      // Event rows leave the first cell empty; any other line ends the list.
      const event = eventNameSchema.safeParse(cells[1]);
      const interval = intervalSchema.safeParse(cells[2]);
      if (first === '' && event.success && interval.success) {
        if (!intervals.has(event.data)) intervals.set(event.data, interval.data);
        continue;
      }
      inEvents = false;
    }
    if (first === 'PROCESS' && processHeader === null) {
      processHeader = cells;
      inProcesses = true;
      continue;
    }
    if (inProcesses) {
      // The table ends at a blank line or at a row of another shape (the next section).
      if (first === '' || cells.length !== processHeader?.length) inProcesses = false;
      else processRows.push(cells);
    }
  }
  return assemble(intervals, processHeader, processRows, program, names);
}

function assemble(
  intervals: Map<string, number>,
  header: string[] | null,
  rows: string[][],
  program: string,
  names: readonly string[],
): UprofParse {
  if (intervals.size === 0) return failed(names, 'uProf report lists no monitored events');
  if (!header) return failed(names, 'uProf report has no process table');
  const wanted = baseName(program);
  const matching = rows.filter(
    (r) => r.length === header.length && baseName(r[0] ?? '') === wanted,
  );
  if (matching.length !== 1)
    return failed(
      names,
      matching.length === 0
        ? `uProf report has no row for ${wanted}`
        : `uProf report has ${matching.length} rows for ${wanted}: ambiguous`,
    );
  const row = matching[0]!;
  const counters = unsupportedCounters(names);
  const requested = new Set(names);
  const notes = [
    'uProf counts are sampled estimates (samples × sampling interval), not exact counts',
  ];
  header.forEach((column, i) => {
    if (!Object.hasOwn(UPROF_EVENT_TO_COUNTER, column)) return;
    const name = UPROF_EVENT_TO_COUNTER[column]!;
    if (!requested.has(name)) return;
    const interval = intervals.get(column);
    const samples = samplesSchema.safeParse(row[i]);
    if (interval === undefined) {
      notes.push(`${column}: no sampling interval in the report`);
      return;
    }
    if (!samples.success) {
      notes.push(`${column}: not a sample count (${JSON.stringify(row[i]?.slice(0, 40))})`);
      return;
    }
    const value = samples.data * interval;
    if (!Number.isSafeInteger(value)) {
      notes.push(`${column}: value out of range`);
      return;
    }
    counters[name] = { value, unit: '', status: 'counted', runningPercent: null };
  });
  return { counters, notes };
}
