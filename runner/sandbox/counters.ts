// Event counters the sandbox helper attaches to the command with perf_event_open: the names it
// knows, and how its raw readings become Counters (scaled, with honest 'unsupported'/'not-counted').
import { COUNTER_NAMES, type Counter } from '../../contracts';
import type { HelperReport } from './run-helper';

/** The events sandbox-helper.c's COUNTER_DEFS table knows: the counter catalog (contracts/counters.ts). */
export const SANDBOX_COUNTERS = COUNTER_NAMES;

/** Counts time in nanoseconds; reported in milliseconds as perf stat does ('msec'). */
const TIME_EVENTS = new Set<string>(['task-clock']);

type HelperCounter = HelperReport['counters'][number];

/**
 * One reading as a Counter. A counter the kernel refused to open (no PMU: ENOENT; not allowed
 * unprivileged: EACCES; EOPNOTSUPP, EINVAL, or a seccomp filter's EPERM/ENOSYS) is unsupported;
 * one that was never enabled (the command never exec'd) or never scheduled is not counted. A
 * multiplexed counter is scaled by enabled/running, as perf stat does.
 */
export function toCounter(name: string, reading: HelperCounter | undefined): Counter {
  const unit = TIME_EVENTS.has(name) ? 'msec' : '';
  if (!reading) return { value: null, unit, status: 'not-counted', runningPercent: 0 };
  if (reading.errno !== 0)
    return { value: null, unit, status: 'unsupported', runningPercent: null };
  if (reading.enabled === 0 || reading.running === 0)
    return { value: null, unit, status: 'not-counted', runningPercent: 0 };
  const running = Math.min(reading.running, reading.enabled);
  const scaled =
    running === reading.enabled ? reading.value : (reading.value * reading.enabled) / running;
  return {
    value: TIME_EVENTS.has(name) ? scaled / 1e6 : Math.round(scaled),
    unit,
    status: 'counted',
    runningPercent: (running / reading.enabled) * 100,
  };
}

/**
 * The requested counters, each from the helper's report; a requested counter the report lacks
 * (the sandbox's init was killed before it could report) is 'not-counted', never 0.
 */
export function toCounters(
  requested: readonly string[],
  reported: HelperReport['counters'],
): Record<string, Counter> {
  const byName = new Map(reported.map((c) => [c.name, c]));
  const out: Record<string, Counter> = {};
  for (const name of requested) out[name] = toCounter(name, byName.get(name));
  return out;
}
