// Per-CPU time accounting from /proc/stat: how long each CPU was busy, idle or stolen, for what the
// runner reads itself (the doctor's load sample, the host's load over a judging's measure stage).
// Around each sandboxed run the sandbox helper reads the pinned CPU in C (sample_cpu in
// runner/sandbox/sandbox-helper.c; tests/unit/proc-stat.test.ts holds the two to each other).
/** USER_HZ: /proc/stat counts in 1/100 s on every Linux architecture the judge runs on. */
export const CLOCK_TICKS_PER_SECOND = 100;

export interface CpuTimes {
  /** Milliseconds: everything but idle and iowait (steal included: the CPU was not ours). */
  busyMs: number;
  idleMs: number;
  stealMs: number;
  totalMs: number;
}

/** The `cpuN` rows of /proc/stat (user nice system idle iowait irq softirq steal …), in ms. */
export function parseProcStat(text: string): Map<number, CpuTimes> {
  const toMs = 1000 / CLOCK_TICKS_PER_SECOND;
  const rows = new Map<number, CpuTimes>();
  for (const line of text.split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const v = m[2]!.trim().split(/\s+/).map(Number);
    // guest and guest_nice (fields 9, 10) are already inside user and nice.
    const fields = v.slice(0, 8).map((x) => (Number.isFinite(x) ? x : 0));
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    const total = fields.reduce((a, b) => a + b, 0);
    rows.set(Number(m[1]), {
      busyMs: (total - idle) * toMs,
      idleMs: idle * toMs,
      stealMs: (fields[7] ?? 0) * toMs,
      totalMs: total * toMs,
    });
  }
  return rows;
}

/** What one CPU did between two readings; null when the CPU is missing from either. */
export function cpuDelta(
  before: Map<number, CpuTimes>,
  after: Map<number, CpuTimes>,
  cpu: number,
): CpuTimes | null {
  const a = before.get(cpu);
  const b = after.get(cpu);
  if (!a || !b) return null;
  return {
    busyMs: Math.max(0, b.busyMs - a.busyMs),
    idleMs: Math.max(0, b.idleMs - a.idleMs),
    stealMs: Math.max(0, b.stealMs - a.stealMs),
    totalMs: Math.max(0, b.totalMs - a.totalMs),
  };
}
