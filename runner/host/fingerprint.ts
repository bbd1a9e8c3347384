// The host fingerprint recorded with every result: a speedup is only comparable between runs on
// the same kind of machine, so the result says exactly which machine measured it.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import type { HostFingerprint } from '../../contracts';

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

export async function compilerVersion(cxx: string): Promise<string> {
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

export interface FingerprintOptions {
  cxx: string;
  sandbox: string;
  devMode?: boolean;
  emulated?: boolean;
}

export async function hostFingerprint(options: FingerprintOptions): Promise<HostFingerprint> {
  const cpus = os.cpus();
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
    devMode: options.devMode ?? false,
    emulated: options.emulated ?? false,
  };
}
