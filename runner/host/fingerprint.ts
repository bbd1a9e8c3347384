// The host fingerprint recorded with every result: a speedup is only comparable between runs on
// the same kind of machine, so the result says exactly which machine measured it.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import type { HostFingerprint } from '../../contracts';
import { parseProcStat } from './proc-stat';

const execFileAsync = promisify(execFile);

async function readText(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return null;
  }
}

/** The CPU vendor string (GenuineIntel, AuthenticAMD) from /proc/cpuinfo. */
export async function cpuVendor(): Promise<string> {
  const cpuinfo = (await readText('/proc/cpuinfo')) ?? '';
  return /^vendor_id\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown';
}

async function compilerVersion(cxx: string): Promise<string> {
  try {
    const { stdout } = await execFileAsync(cxx, ['--version'], { timeout: 10_000 });
    return stdout.split('\n')[0]?.trim() ?? cxx;
  } catch {
    return `${cxx} (not found)`;
  }
}

async function turboState(): Promise<string | null> {
  const noTurbo = await readText('/sys/devices/system/cpu/intel_pstate/no_turbo');
  if (noTurbo !== null) return noTurbo === '1' ? 'off' : 'on';
  const boost = await readText('/sys/devices/system/cpu/cpufreq/boost');
  if (boost !== null) return boost === '1' ? 'on' : 'off';
  return null;
}

/** The CPU timed runs are pinned to: the runner's setting, the manifest's, else the last CPU. */
export function judgeCpu(policyCpu: number | undefined, cpu?: number): number {
  return cpu ?? policyCpu ?? Math.max(0, os.cpus().length - 1);
}

export interface FingerprintOptions {
  cxx: string;
  sandbox: string;
  /** The CPU timed runs are pinned to. */
  cpu?: number | null;
  devMode?: boolean;
  emulated?: boolean;
}

/** Parses a kernel CPU list ("0-3,8,10-11") into numbers. */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.trim().split(',')) {
    if (!part) continue;
    const [from, to] = part.split('-').map(Number);
    if (from === undefined || !Number.isInteger(from)) continue;
    for (let c = from; c <= (to ?? from); c++) cpus.push(c);
  }
  return cpus;
}

/** The bracketed choice of a sysfs setting such as "always [madvise] never". */
export function selectedSetting(text: string | null): string | null {
  if (text === null) return null;
  return /\[([^\]]+)\]/.exec(text)?.[1] ?? text.trim();
}

async function perfFacts(): Promise<{ version: string | null; hardware: boolean }> {
  try {
    const { stdout } = await execFileAsync('perf', ['--version'], { timeout: 10_000 });
    // A hardware event either counts or says <not supported> / <not counted>.
    const probe = await execFileAsync('perf', ['stat', '-x', ',', '-e', 'instructions', 'true'], {
      timeout: 10_000,
    });
    const line = probe.stderr.split('\n').find((l) => l.includes('instructions')) ?? '';
    return { version: stdout.trim(), hardware: /^\d/.test(line) };
  } catch {
    return { version: null, hardware: false };
  }
}

export async function hostFingerprint(options: FingerprintOptions): Promise<HostFingerprint> {
  const cpus = os.cpus();
  const cpu = options.cpu ?? null;
  const siblings =
    cpu === null
      ? null
      : await readText(`/sys/devices/system/cpu/cpu${cpu}/topology/thread_siblings_list`);
  const perf = await perfFacts();
  return {
    hostname: os.hostname(),
    os: `${os.type()} ${os.release()}`,
    kernel: os.release(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuVendor: await cpuVendor(),
    cores: Math.max(1, cpus.length),
    compiler: await compilerVersion(options.cxx),
    governor: await readText('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor'),
    turbo: await turboState(),
    sandbox: options.sandbox,
    pinnedCpu: cpu,
    smtSiblings: siblings === null ? [] : parseCpuList(siblings).filter((c) => c !== cpu),
    thp: selectedSetting(await readText('/sys/kernel/mm/transparent_hugepage/enabled')),
    perfVersion: perf.version,
    hardwareCounters: perf.hardware,
    hostDifferences: [],
    devMode: options.devMode ?? false,
    emulated: options.emulated ?? false,
  };
}

/** Conditions that make timings less trustworthy, in words for the report. */
export function hostConditionWarnings(
  host: HostFingerprint,
  siblingsBusy: number[] = [],
): string[] {
  const warnings: string[] = [];
  if (host.turbo === 'on')
    warnings.push('turbo/boost is on: the clock can change with temperature and load');
  if (host.governor !== null && host.governor !== 'performance') {
    warnings.push(`CPU frequency governor is "${host.governor}", not "performance"`);
  }
  if (host.governor === null)
    warnings.push('the CPU frequency governor cannot be read (a virtual machine?)');
  if (siblingsBusy.length) {
    warnings.push(
      `SMT sibling CPU ${siblingsBusy.join(', ')} of the pinned CPU was busy during the runs`,
    );
  }
  if (!host.hardwareCounters) {
    warnings.push(
      'hardware counters are unsupported on this host (no PMU): only software counters are reported',
    );
  }
  return warnings;
}

/** Busy share (0..1) of each CPU between two /proc/stat readings. */
export function cpuBusyShares(before: string, after: string): Map<number, number> {
  const a = parseProcStat(before);
  const shares = new Map<number, number>();
  for (const [cpu, end] of parseProcStat(after)) {
    const start = a.get(cpu);
    if (!start || end.totalMs <= start.totalMs) continue;
    shares.set(cpu, (end.busyMs - start.busyMs) / (end.totalMs - start.totalMs));
  }
  return shares;
}
