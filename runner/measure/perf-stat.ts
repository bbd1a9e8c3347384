// `perf stat` around a timed run: the command prefix and a parser for its CSV output (-x,).
// A counter the host cannot count is 'unsupported' and one that never ran is 'not-counted':
// neither is ever reported as zero.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Counter } from '../../contracts';

const execFileAsync = promisify(execFile);

/** Software events every Linux kernel counts, with or without a hardware PMU. */
export const SOFTWARE_EVENTS = [
  'task-clock',
  'context-switches',
  'cpu-migrations',
  'page-faults',
  'minor-faults',
  'major-faults',
] as const;

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

/**
 * Parses perf stat's CSV lines: value,unit,event,run-time,percent-running,metric,metric-unit.
 * Comment lines (#) and blank lines are skipped; later lines for the same event win.
 */
export function parsePerfStatCsv(text: string): Record<string, Counter> {
  const counters: Record<string, Counter> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const fields = line.split(',');
    if (fields.length < 3) continue;
    const [value = '', unit = '', rawEvent = ''] = fields;
    // Unprivileged perf counts user space only and says so with a modifier (task-clock:u).
    const event = rawEvent.replace(/:[ukhHGp]+$/, '');
    if (!event) continue;
    const running = fields[4] !== undefined && fields[4] !== '' ? Number(fields[4]) : null;
    const runningPercent =
      running !== null && Number.isFinite(running) ? Math.min(100, Math.max(0, running)) : null;
    if (value === '<not supported>') {
      counters[event] = { value: null, unit, status: 'unsupported', runningPercent: null };
    } else if (value === '<not counted>') {
      counters[event] = { value: null, unit, status: 'not-counted', runningPercent };
    } else {
      const n = Number(value);
      if (!Number.isFinite(n)) continue;
      // Multiplexed counters are scaled by perf already (value = raw × enabled / running).
      counters[event] = { value: n, unit, status: 'counted', runningPercent };
    }
  }
  return counters;
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
