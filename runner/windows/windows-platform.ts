// The Windows platform: natively on a Windows host (the manifest's clang-cl toolchain, the job
// helper in a Job Object, AMD uProf when installed), or emulated on Linux (MinGW-w64 with the flags
// mapped, the job helper under Wine in the host's sandbox; every result labelled emulated). It also
// owns the portability pre-check's roles: Linux runners cross-compile for it, its runner settles.
import { UnavailableError } from '../../contracts';
import type { Target } from '../../contracts';
import { env } from '../../lib/core/config/env';
import {
  type HostPlatformOptions,
  type OsPlatform,
  type PlatformCapabilities,
  type PortabilityRole,
} from '../platform/target-platform';
import { canCrossCompile, mingwBuild, MINGW_TOOLCHAIN_FILE, MINGW_CXX } from './mingw-toolchain';
import { findUprofCli } from './uprof';
import { WindowsJobSandbox } from './windows-job-sandbox';
import { WineSandbox } from './wine-sandbox';
import { wineVersion } from './wine-prefix';

/** The memory sampler, perf's Top-Down and cachegrind are Linux tools, for Linux binaries. */
const NO_LINUX_PROFILE = {
  memoryProfile: false,
  topDown: false,
  cachegrind: false,
  sampledProfile: false,
};
const NATIVE: PlatformCapabilities = { timing: 'native', ...NO_LINUX_PROFILE };
const EMULATED: PlatformCapabilities = { timing: 'emulated', ...NO_LINUX_PROFILE };

export const windowsPlatform: OsPlatform = {
  // Its programs need a Job Object, or Wine inside the host's sandbox.
  runsInHostSandbox: false,
  async create(options) {
    const { target, sandbox } = options;
    if (process.platform === 'win32') {
      const cli = findUprofCli({
        platform: process.platform,
        configured: env().PERFJUDGE_UPROF_CLI,
        searchPath: env().PATH,
      });
      const jobs = new WindowsJobSandbox({ uprof: cli ? { cli } : null });
      return {
        capabilities: NATIVE,
        toolchain: target.toolchain,
        buildMounts: [],
        runSandbox: jobs,
        osLabel: null,
        sandboxLabel: jobs.kind,
        notes: cli
          ? [`counters: AMD uProf (${cli}), sampled; untested on a real host`]
          : ['counters unsupported: AMD uProf (AMDuProfCLI.exe) not found'],
      };
    }
    const wine = await wineVersion();
    if (!wine)
      throw new UnavailableError(
        `target windows-amd needs a Windows host, or Wine to emulate one here (apt-get install wine wine64 g++-mingw-w64-x86-64)`,
      );
    const mingw = mingwBuild(target.toolchain);
    return {
      capabilities: EMULATED,
      toolchain: mingw.toolchain,
      build: mingw.platform,
      buildMounts: [{ host: MINGW_TOOLCHAIN_FILE, sandbox: MINGW_TOOLCHAIN_FILE }],
      runSandbox: wineSandbox(options),
      osLabel: `Windows emulated by ${wine} on Linux`,
      sandboxLabel: emulatedSandboxLabel(sandbox),
      notes: [
        `emulated: Windows under ${wine} on this Linux host, built with ${MINGW_CXX} instead of ` +
          `${target.toolchain.cxx}; timings are not a Windows host's`,
        mingw.summary,
      ],
      emulatedTimingNote:
        'emulated: no counters (Wine gives no PMU access and AMD uProf is not there): all unsupported; ' +
        "CPU times include Wine's own processes, so the single-thread check is not made",
    };
  },
  emulatedOn: (hostOs) => hostOs === 'linux',
  emulator: (hostOs) =>
    windowsPlatform.emulatedOn(hostOs) ? wineVersion() : Promise.resolve(null),
  emulation: (options, by) => ({
    by,
    sandboxLabel: emulatedSandboxLabel(options.sandbox),
    warmUp: () => wineSandbox(options).check(),
  }),
};

function wineSandbox(options: Pick<HostPlatformOptions, 'sandbox' | 'dataDir' | 'log'>) {
  return new WineSandbox({
    linux: options.sandbox,
    dataDir: options.dataDir,
    log: options.log,
  });
}

function emulatedSandboxLabel(sandbox: { kind: string }): string {
  return `wine (job helper) in ${sandbox.kind}`;
}

/**
 * This runner's part in the portability pre-check for `target`: a Windows target's runner settles
 * from a failed check; a Linux host with MinGW-w64 cross-compiles for it; otherwise none.
 */
export async function portabilityRole(
  target: Target,
  hostOs: string,
): Promise<PortabilityRole | null> {
  if (target.os === 'windows') return 'settles';
  return hostOs === 'linux' && (await canCrossCompile()) ? 'cross-compiles' : null;
}
