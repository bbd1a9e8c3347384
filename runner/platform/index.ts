// The platform registry: the one place that maps a target to its OS's platform (a leaf module
// behind target-platform.ts). The judge, final sessions and the runner process ask here for what a
// target needs on this host, and never test an OS themselves.
import { TARGET_IDS, type Target, type TargetId } from '../../contracts';
import { cpuVendor } from '../host/fingerprint';
import { portabilityRole, windowsPlatform } from '../windows/windows-platform';
import { linuxPlatform } from './linux-platform';
import type {
  HostPlatform,
  HostPlatformOptions,
  OsPlatform,
  PlatformOptions,
  TargetHostMatch,
  TargetPlatform,
} from './target-platform';

export * from './target-platform';

const PLATFORMS: Record<Target['os'], OsPlatform> = {
  linux: linuxPlatform,
  windows: windowsPlatform,
};

const HOST_OS: Record<string, Target['os']> = { linux: 'linux', win32: 'windows' };
const hostOs = (): string => HOST_OS[process.platform] ?? process.platform;

/**
 * The target a command judges or builds for when none is named: the first (in TARGET_IDS order)
 * of this host's OS, Windows on Windows and Linux on any other host (a contestant's `perfjudge run`
 * on macOS builds with the Linux target's flags); `os` names the OS it looked for.
 */
export function nativeTarget(targets: Partial<Record<TargetId, Target>>): {
  os: Target['os'];
  id: TargetId | undefined;
} {
  const os = hostOs() === 'windows' ? 'windows' : 'linux';
  return { os, id: TARGET_IDS.find((id) => targets[id]?.os === os) };
}

/** The first of `targets` whose programs the host's own sandbox runs natively, if any. */
export function hostSandboxTarget<T extends Target>(
  targets: Partial<Record<string, T>>,
): T | undefined {
  return Object.values(targets).find(
    (t): t is T => t !== undefined && PLATFORMS[t.os].runsInHostSandbox,
  );
}

/** The adapter that judges `options.target` on this host. */
export function createTargetPlatform(options: PlatformOptions): Promise<TargetPlatform> {
  return PLATFORMS[options.target.os].create(options);
}

export async function matchTargetHost(target: Target): Promise<TargetHostMatch> {
  const os = hostOs();
  const hostVendor = await cpuVendor();
  const emulator = await PLATFORMS[target.os].emulator(os);
  return {
    matches: os === target.os && hostVendor === target.cpuVendor,
    sameOs: os === target.os,
    hostOs: os,
    hostVendor,
    emulator,
  };
}

/** This host judges `target` emulated (when the emulator is installed: doctor checks it). */
export function emulatedHere(target: Target): boolean {
  return PLATFORMS[target.os].emulatedOn(hostOs());
}

export async function hostPlatform(options: HostPlatformOptions): Promise<HostPlatform> {
  const match = await matchTargetHost(options.target);
  const emulator = options.emulate === false ? null : match.emulator;
  return {
    ...match,
    emulation: emulator ? PLATFORMS[options.target.os].emulation(options, emulator) : null,
    portability: await portabilityRole(options.target, match.hostOs),
  };
}
