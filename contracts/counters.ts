// The counter catalog: every event a timed run counts, once, in the order reports list them.
// runner/sandbox/sandbox-helper.c's COUNTER_DEFS table opens exactly these (perf's names);
// tests/unit/sandbox-counters.test.ts checks that the C table and this catalog match.
export const COUNTER_CATALOG = {
  'task-clock': 'software',
  cycles: 'hardware',
  'ref-cycles': 'hardware',
  instructions: 'hardware',
  branches: 'hardware',
  'branch-misses': 'hardware',
  'cache-references': 'hardware',
  'cache-misses': 'hardware',
  'L1-dcache-loads': 'hardware',
  'L1-dcache-load-misses': 'hardware',
  'dTLB-loads': 'hardware',
  'dTLB-load-misses': 'hardware',
  'page-faults': 'software',
  'minor-faults': 'software',
  'major-faults': 'software',
  'context-switches': 'software',
  'cpu-migrations': 'software',
} as const satisfies Record<string, 'software' | 'hardware'>;

export type CounterName = keyof typeof COUNTER_CATALOG;

/** Every counter name, in report order (a non-empty tuple, as z.enum wants). */
export const COUNTER_NAMES = Object.keys(COUNTER_CATALOG) as [CounterName, ...CounterName[]];

/** Software events every Linux kernel counts (with or without a PMU), or hardware ones (PMU only). */
export function countersOfKind(kind: 'software' | 'hardware'): CounterName[] {
  return COUNTER_NAMES.filter((name) => COUNTER_CATALOG[name] === kind);
}
