// Counters on the Windows target: AMD uProf's when a native host has it (uprof.ts), otherwise each
// asked-for counter is 'unsupported' — never 0 — as the contract requires.
import type { Counter } from '../../contracts';

export function unsupportedCounters(names: readonly string[]): Record<string, Counter> {
  return Object.fromEntries(
    names.map((name) => [
      name,
      { value: null, unit: '', status: 'unsupported', runningPercent: null },
    ]),
  );
}
