// What differs between targets is only this adapter: how the build is configured, which sandbox
// runs the programs, and what the host fingerprint says. The pipeline, statistics, verdicts and
// result schema are the same for every target (runner/judge/judge.ts).
//
//   linux-intel on Linux     native: the manifest's toolchain, bubblewrap
//   windows-amd on Windows   native: clang-cl + the manifest's flags, the job helper in a Job Object
//   windows-amd on Linux     emulated (automatic when Wine is installed): MinGW-w64 with the flags
//                            mapped (mingw-toolchain.ts), the job helper under Wine in bubblewrap;
//                            every result is labelled emulated (HostFingerprint.emulated)
import { AppError } from '../../contracts';
import type { Target, TargetId, Toolchain } from '../../contracts';
import type { BuildPlatform } from '../build/build-tree';
import type { Sandbox, SandboxMount } from '../sandbox/sandbox';
import { cpuVendor } from '../host/fingerprint';
import { canCrossCompile, mingwBuild, MINGW_TOOLCHAIN_FILE, MINGW_CXX } from './mingw-toolchain';
import { env } from '../../lib/config/env';
import { findUprofCli } from './uprof';
import { WindowsJobSandbox } from './windows-job-sandbox';
import { WineSandbox } from './wine-sandbox';
import { wineVersion } from './wine-prefix';

export interface TargetPlatform {
  mode: 'native' | 'emulated';
  /** What the builds are configured with (the manifest's, or its MinGW mapping). */
  toolchain: Toolchain;
  /** Extra configure arguments and the executable suffix of a cross build. */
  build?: BuildPlatform;
  /** Extra read-only files the sandboxed build needs (the CMake toolchain file). */
  buildMounts: SandboxMount[];
  /** Runs the built programs (tests, timed runs). */
  runSandbox: Sandbox;
  /** Memory sampler, perf's Top-Down and cachegrind are Linux tools, for Linux binaries. */
  linuxProfile: boolean;
  /** What the fingerprint records as the OS and the sandbox. */
  osLabel: string | null;
  sandboxLabel: string;
  /** Said in every result's warnings. */
  notes: string[];
}

export class PlatformUnavailableError extends AppError {
  override name = 'PlatformUnavailableError';
  readonly code = 'unavailable' as const;
}

export interface PlatformOptions {
  target: Target;
  /** The host's own sandbox (bubblewrap on Linux): builds run in it, and emulated runs too. */
  sandbox: Sandbox;
  dataDir: string;
  log?: (line: string) => void;
}

export async function createTargetPlatform(options: PlatformOptions): Promise<TargetPlatform> {
  const { target, sandbox } = options;
  if (target.os === 'linux')
    return {
      mode: 'native',
      toolchain: target.toolchain,
      buildMounts: [],
      runSandbox: sandbox,
      linuxProfile: true,
      osLabel: null,
      sandboxLabel: sandbox.kind,
      notes: [],
    };
  if (process.platform === 'win32') {
    const cli = findUprofCli({
      platform: process.platform,
      configured: env().PERFJUDGE_UPROF_CLI,
      searchPath: env().PATH,
    });
    const jobs = new WindowsJobSandbox({ uprof: cli ? { cli } : null });
    return {
      mode: 'native',
      toolchain: target.toolchain,
      buildMounts: [],
      runSandbox: jobs,
      linuxProfile: false,
      osLabel: null,
      sandboxLabel: jobs.kind,
      notes: cli
        ? [`counters: AMD uProf (${cli}), sampled; untested on a real host`]
        : ['counters unsupported: AMD uProf (AMDuProfCLI.exe) not found'],
    };
  }
  const wine = await wineVersion();
  if (!wine)
    throw new PlatformUnavailableError(
      `target windows-amd needs a Windows host, or Wine to emulate one here (apt-get install wine wine64 g++-mingw-w64-x86-64)`,
    );
  const mingw = mingwBuild(target.toolchain);
  const runSandbox = new WineSandbox({
    linux: sandbox,
    dataDir: options.dataDir,
    ...(options.log ? { log: options.log } : {}),
  });
  return {
    mode: 'emulated',
    toolchain: mingw.toolchain,
    build: mingw.platform,
    buildMounts: [{ host: MINGW_TOOLCHAIN_FILE, sandbox: MINGW_TOOLCHAIN_FILE }],
    runSandbox,
    linuxProfile: false,
    osLabel: `Windows emulated by ${wine} on Linux`,
    sandboxLabel: `wine (job helper) in ${sandbox.kind}`,
    notes: [
      `emulated: Windows under ${wine} on this Linux host, built with ${MINGW_CXX} instead of ` +
        `${target.toolchain.cxx}; timings are not a Windows host's`,
      mingw.summary,
    ],
  };
}

const HOST_OS: Record<string, Target['os']> = { linux: 'linux', win32: 'windows' };

/** How this host stands to a target: the same OS and CPU vendor, or an emulator for it. */
export interface TargetHostMatch {
  /** The host's OS and CPU vendor are the target's. */
  matches: boolean;
  hostOs: string;
  hostVendor: string;
  /** What would emulate the target here (`wine --version` for Windows on Linux), or null. */
  emulator: string | null;
}

export async function matchTargetHost(target: Target): Promise<TargetHostMatch> {
  const hostOs = HOST_OS[process.platform] ?? process.platform;
  const hostVendor = await cpuVendor();
  const emulator = target.os === 'windows' && hostOs === 'linux' ? await wineVersion() : null;
  return {
    matches: hostOs === target.os && hostVendor === target.cpuVendor,
    hostOs,
    hostVendor,
    emulator,
  };
}

/**
 * A runner's part in the portability pre-check (portability-check.ts): the windows-amd runner
 * settles a judging from a failed check; a Linux runner with MinGW-w64 cross-compiles for it.
 */
export type PortabilityRole = 'settles' | 'cross-compiles';

/** The target emulated on this host: never the target's hardware, so always development mode. */
export interface Emulation {
  /** The emulator (`wine --version`). */
  by: string;
  /** What the host fingerprint records as the sandbox. */
  sandboxLabel: string;
  /**
   * Builds the job helper with MinGW and initializes the Wine prefix now (once, ~10-30 s, logged),
   * so the first judging does not pay for it; throws when the emulator does not work here.
   */
  warmUp(): Promise<void>;
}

/** What a runner asks of the platform before it takes jobs for a target (runner/service). */
export interface HostPlatform extends TargetHostMatch {
  /** Null when the target runs natively here (or not at all). */
  emulation: Emulation | null;
  portability: PortabilityRole | null;
}

export interface HostPlatformOptions {
  targetId: TargetId;
  target: Target;
  /** The host's own sandbox: emulated runs happen inside it. */
  sandbox: Sandbox;
  dataDir: string;
  /** Judge a Windows target emulated when the host is Linux with Wine (default true). */
  emulate?: boolean;
  log?: (line: string) => void;
}

export async function hostPlatform(options: HostPlatformOptions): Promise<HostPlatform> {
  const match = await matchTargetHost(options.target);
  const emulator = options.emulate === false ? null : match.emulator;
  const emulation: Emulation | null = emulator
    ? {
        by: emulator,
        sandboxLabel: `wine (job helper) in ${options.sandbox.kind}`,
        warmUp: () =>
          new WineSandbox({
            linux: options.sandbox,
            dataDir: options.dataDir,
            ...(options.log ? { log: options.log } : {}),
          }).check(),
      }
    : null;
  const crossCompiles = match.hostOs === 'linux' && (await canCrossCompile());
  const portability: PortabilityRole | null =
    options.targetId === 'windows-amd' ? 'settles' : crossCompiles ? 'cross-compiles' : null;
  return { ...match, emulation, portability };
}
