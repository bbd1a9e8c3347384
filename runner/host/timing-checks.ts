// What hurts timing on this host, read from /proc and /sys and judged one item at a time: each check
// says what it found, ok / warn / bad / unknown, and how to fix it. Pure functions over a snapshot,
// so recorded files from other hosts test every verdict.
import {
  formatByteSize,
  HUGE_PAGE_BYTES,
  type HostCheck,
  type HostCheckVerdict,
  type HostMemory,
  type HostNoise,
  worstVerdict,
} from '../../contracts';
import { parseCpuList, selectedSetting } from './fingerprint';
import { HOST_ROOT, readHostFile } from './host-files';
import { hostMemoryDifferences, readHostMemory, type ObservedHostMemory } from './memory';
import { cpuDelta, parseProcStat } from './proc-stat';

export interface HostSnapshot {
  cpu: number;
  governor: string | null;
  /** intel_pstate's no_turbo ("1": off) and cpufreq's boost ("1": on), when the host has them. */
  intelNoTurbo: string | null;
  cpufreqBoost: string | null;
  /** The pinned CPU's SMT siblings (other hardware threads of its core). null: unreadable. */
  siblings: number[] | null;
  /** CPUs isolated from the scheduler (isolcpus) and without the tick (nohz_full). */
  isolated: number[] | null;
  nohzFull: number[] | null;
  perfEventParanoid: number | null;
  memory: ObservedHostMemory;
}

export async function readHostSnapshot(cpu: number, root = HOST_ROOT): Promise<HostSnapshot> {
  const read = (file: string) => readHostFile(root, file);
  const cpuDir = `sys/devices/system/cpu/cpu${cpu}`;
  const siblings = await read(`${cpuDir}/topology/thread_siblings_list`);
  const isolated = await read('sys/devices/system/cpu/isolated');
  const nohz = await read('sys/devices/system/cpu/nohz_full');
  const paranoid = await read('proc/sys/kernel/perf_event_paranoid');
  return {
    cpu,
    governor: selectedSetting(await read(`${cpuDir}/cpufreq/scaling_governor`)),
    intelNoTurbo: await read('sys/devices/system/cpu/intel_pstate/no_turbo'),
    cpufreqBoost: await read('sys/devices/system/cpu/cpufreq/boost'),
    siblings: siblings === null ? null : parseCpuList(siblings).filter((c) => c !== cpu),
    isolated: isolated === null ? null : parseCpuList(isolated),
    // "(null)" is what the kernel writes when nohz_full is not set.
    nohzFull: nohz === null ? null : parseCpuList(nohz.replace('(null)', '')),
    perfEventParanoid: paranoid !== null && /^-?\d+$/.test(paranoid) ? Number(paranoid) : null,
    memory: await readHostMemory(root),
  };
}

/** How busy the pinned CPU and its siblings were over a quiet window (nothing of ours running). */
export interface LoadSample {
  windowMs: number;
  /** Share (0..1) of the window the pinned CPU was busy with other tasks, and stolen. */
  pinnedBusy: number;
  pinnedSteal: number;
  /** Busy share of each SMT sibling. */
  siblingsBusy: Map<number, number>;
}

export function loadSample(
  before: string,
  after: string,
  cpu: number,
  siblings: number[],
): LoadSample | null {
  const a = parseProcStat(before);
  const b = parseProcStat(after);
  const pinned = cpuDelta(a, b, cpu);
  if (!pinned || pinned.totalMs <= 0) return null;
  const siblingsBusy = new Map<number, number>();
  for (const s of siblings) {
    const d = cpuDelta(a, b, s);
    if (d && d.totalMs > 0) siblingsBusy.set(s, d.busyMs / d.totalMs);
  }
  return {
    windowMs: pinned.totalMs,
    pinnedBusy: pinned.busyMs / pinned.totalMs,
    pinnedSteal: pinned.stealMs / pinned.totalMs,
    siblingsBusy,
  };
}

/** Reads /proc/stat twice, windowMs apart, and returns the load on the CPU and its siblings. */
export async function measureLoad(
  cpu: number,
  siblings: number[],
  windowMs: number,
  root = HOST_ROOT,
): Promise<LoadSample | null> {
  const before = (await readHostFile(root, 'proc/stat')) ?? '';
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const after = (await readHostFile(root, 'proc/stat')) ?? '';
  return loadSample(before, after, cpu, siblings);
}

type Check = Omit<HostCheck, 'group'>;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const timing = (c: Check): HostCheck => ({ group: 'timing', ...c });

/** A share of other work: ≤ 2% ok, ≤ 10% warn, more is bad. */
function shareVerdict(share: number): HostCheckVerdict {
  return share <= 0.02 ? 'ok' : share <= 0.1 ? 'warn' : 'bad';
}

function governorCheck(s: HostSnapshot): HostCheck {
  const base = { id: 'governor', title: `CPU frequency governor (CPU ${s.cpu})` };
  if (s.governor === null)
    return timing({
      ...base,
      verdict: 'unknown',
      detail:
        'no cpufreq interface: the clock is not visible here (a virtual machine: the hypervisor sets it)',
      fix: null,
    });
  if (s.governor === 'performance')
    return timing({ ...base, verdict: 'ok', detail: 'performance', fix: null });
  return timing({
    ...base,
    verdict: 'warn',
    detail: `"${s.governor}": the clock follows the load, so a run's speed depends on what ran before it`,
    fix: 'sudo cpupower frequency-set -g performance (or: echo performance | sudo tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)',
  });
}

function turboCheck(s: HostSnapshot): HostCheck {
  const base = { id: 'turbo', title: 'Turbo / boost' };
  const on =
    s.intelNoTurbo !== null
      ? s.intelNoTurbo !== '1'
      : s.cpufreqBoost !== null
        ? s.cpufreqBoost === '1'
        : null;
  if (on === null)
    return timing({
      ...base,
      verdict: 'unknown',
      detail: 'neither intel_pstate/no_turbo nor cpufreq/boost exists (a virtual machine?)',
      fix: null,
    });
  if (!on) return timing({ ...base, verdict: 'ok', detail: 'off', fix: null });
  return timing({
    ...base,
    verdict: 'warn',
    detail: 'on: the clock changes with temperature and with the load on other cores',
    fix:
      s.intelNoTurbo !== null
        ? 'echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo'
        : 'echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost',
  });
}

function smtCheck(s: HostSnapshot, load: LoadSample | null): HostCheck {
  const base = { id: 'smt-sibling', title: `SMT sibling of CPU ${s.cpu}` };
  if (s.siblings === null)
    return timing({
      ...base,
      verdict: 'unknown',
      detail: 'the CPU topology is not readable',
      fix: null,
    });
  if (s.siblings.length === 0)
    return timing({
      ...base,
      verdict: 'ok',
      detail: 'none: the CPU has its core to itself',
      fix: null,
    });
  const busy = s.siblings.map((c) => [c, load?.siblingsBusy.get(c)] as const);
  const busiest = Math.max(0, ...busy.map(([, b]) => b ?? 0));
  const fix =
    `keep CPU ${s.siblings.join(', ')} idle (isolcpus, or move work off it), or turn SMT off: ` +
    'echo off | sudo tee /sys/devices/system/cpu/smt/control';
  const measured = busy
    .filter(([, b]) => b !== undefined)
    .map(([c, b]) => `CPU ${c} ${pct(b!)} busy`)
    .join(', ');
  return timing({
    ...base,
    verdict: busiest > 0.2 ? 'bad' : 'warn',
    detail:
      `CPU ${s.siblings.join(', ')} shares its core${measured ? ` (${measured} over ${((load?.windowMs ?? 0) / 1000).toFixed(1)} s)` : ''}: ` +
      'work there slows the judged program',
    fix,
  });
}

function loadCheck(s: HostSnapshot, load: LoadSample | null): HostCheck {
  const base = { id: 'cpu-load', title: `Other load on CPU ${s.cpu}` };
  if (!load)
    return timing({ ...base, verdict: 'unknown', detail: '/proc/stat is not readable', fix: null });
  const verdict = shareVerdict(load.pinnedBusy);
  return timing({
    ...base,
    verdict,
    detail:
      `busy ${pct(load.pinnedBusy)} of ${(load.windowMs / 1000).toFixed(1)} s with nothing judged` +
      (load.pinnedSteal > 0 ? `, ${pct(load.pinnedSteal)} stolen by the hypervisor` : ''),
    fix:
      verdict === 'ok'
        ? null
        : `find what runs there (ps -eo pid,psr,pcpu,comm --sort=-pcpu | awk '$2==${s.cpu}') and move it ` +
          `off (taskset, systemd CPUAffinity=), or isolate the CPU (isolcpus=${s.cpu})`,
  });
}

function isolationCheck(s: HostSnapshot): HostCheck {
  const base = { id: 'isolated-cpu', title: `CPU ${s.cpu} isolated (isolcpus / nohz_full)` };
  if (s.isolated === null)
    return timing({
      ...base,
      verdict: 'unknown',
      detail: '/sys/devices/system/cpu/isolated is not readable',
      fix: null,
    });
  const isolated = s.isolated.includes(s.cpu);
  const tickless = s.nohzFull?.includes(s.cpu) ?? false;
  if (isolated)
    return timing({
      ...base,
      verdict: 'ok',
      detail: `isolated${tickless ? ', nohz_full' : ' (without nohz_full: the timer tick still interrupts it)'}`,
      fix: null,
    });
  return timing({
    ...base,
    verdict: 'warn',
    detail: 'not isolated: the scheduler may put any task on it',
    fix: `boot with isolcpus=${s.cpu} nohz_full=${s.cpu} rcu_nocbs=${s.cpu} on the kernel command line, then start the runner with --cpu ${s.cpu}`,
  });
}

function paranoidCheck(s: HostSnapshot): HostCheck {
  const base = { id: 'perf-event-paranoid', title: 'perf_event_paranoid (hardware counters)' };
  if (s.perfEventParanoid === null)
    return timing({ ...base, verdict: 'unknown', detail: 'not readable', fix: null });
  if (s.perfEventParanoid <= 2)
    return timing({
      ...base,
      verdict: 'ok',
      detail: `${s.perfEventParanoid}: the judge may count its runs' events in user space`,
      fix: null,
    });
  return timing({
    ...base,
    verdict: 'warn',
    detail: `${s.perfEventParanoid}: counters are unsupported for the judge's runs (timing does not depend on it)`,
    fix: 'sudo sysctl -w kernel.perf_event_paranoid=2',
  });
}

/** The manifest's memory conditions against this host (THP mode, 2 MiB huge page pool). */
function memoryChecks(s: HostSnapshot, required: HostMemory | undefined): HostCheck[] {
  const observedThp = s.memory.transparentHugePages ?? 'not readable';
  const observedPool =
    s.memory.hugePages === null
      ? 'not readable'
      : s.memory.hugePages.total === 0
        ? 'no pool (0 pages)'
        : `${s.memory.hugePages.total} pages (${formatByteSize(s.memory.hugePages.total * HUGE_PAGE_BYTES)}), ${s.memory.hugePages.free} free`;
  const thp = {
    id: 'transparent-huge-pages',
    group: 'memory' as const,
    title: 'Transparent huge pages',
  };
  const pool = {
    id: 'huge-pages',
    group: 'memory' as const,
    title: '2 MiB huge page pool (MAP_HUGETLB)',
  };
  if (!required)
    return [
      {
        ...thp,
        verdict: 'unknown',
        detail: `${observedThp}; the challenge states no host memory conditions`,
        fix: null,
      },
      {
        ...pool,
        verdict: 'unknown',
        detail: `${observedPool}; the challenge states none`,
        fix: null,
      },
    ];
  const differences = hostMemoryDifferences(required, s.memory);
  const want = required.hugePages === 'none' ? 'none' : formatByteSize(required.hugePages);
  return [
    [
      thp,
      'transparent-huge-pages',
      `${observedThp} (the benchmark definition: ${required.transparentHugePages})`,
    ] as const,
    [pool, 'huge-pages', `${observedPool} (the benchmark definition: ${want})`] as const,
  ].map(([base, item, detail]) => {
    const d = differences.find((x) => x.item === item);
    return {
      ...base,
      verdict: d ? 'bad' : 'ok',
      detail: d ? d.message : detail,
      fix: d?.fix ?? null,
    };
  });
}

/** The baseline's run-to-run noise: CV of wall time, utilization and other tasks' share. */
export function noiseCheck(noise: HostNoise | null, whyNot: string | null): HostCheck {
  const base = { id: 'noise', title: 'Run-to-run noise of the baseline' };
  if (!noise || noise.runs < 2)
    return timing({ ...base, verdict: 'unknown', detail: whyNot ?? 'not measured', fix: null });
  const cvVerdict: HostCheckVerdict =
    noise.wallCv <= 0.03 ? 'ok' : noise.wallCv <= 0.1 ? 'warn' : 'bad';
  const utilVerdict: HostCheckVerdict =
    noise.utilization >= 0.95 ? 'ok' : noise.utilization >= 0.85 ? 'warn' : 'bad';
  const otherVerdict = shareVerdict(
    noise.medianWallMs > 0 ? noise.otherTasksMs / noise.medianWallMs : 0,
  );
  const verdict = worstVerdict([cvVerdict, utilVerdict, otherVerdict]);
  return timing({
    ...base,
    verdict,
    detail:
      `${noise.runs} runs of ${(noise.medianWallMs / 1000).toFixed(2)} s on CPU ${noise.cpu}: wall CV ${pct(noise.wallCv)}, ` +
      `CPU-time CV ${pct(noise.cpuTimeCv)}, utilization ${noise.utilization.toFixed(2)}, ` +
      `other tasks ${noise.otherTasksMs.toFixed(0)} ms per run` +
      (noise.stealMs > 0 ? `, steal ${noise.stealMs.toFixed(0)} ms per run` : ''),
    fix:
      verdict === 'ok'
        ? null
        : 'judge on a quieter host: stop other work on this machine (builds, other judgings), isolate the ' +
          "judge's CPU, and fix the other timing items; on a VM with steal time, ask for dedicated vCPUs",
  });
}

/** Every timing and memory check of a host, in a stable order. */
export function timingChecks(
  s: HostSnapshot,
  load: LoadSample | null,
  noise: { noise: HostNoise | null; whyNot: string | null },
  required: HostMemory | undefined,
): HostCheck[] {
  return [
    noiseCheck(noise.noise, noise.whyNot),
    loadCheck(s, load),
    smtCheck(s, load),
    governorCheck(s),
    turboCheck(s),
    isolationCheck(s),
    paranoidCheck(s),
    ...memoryChecks(s, required),
  ];
}
