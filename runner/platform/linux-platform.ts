// The Linux platform: the manifest's toolchain, and the host's own sandbox runs the programs, with
// every Linux tool the profile stage has.
import type { OsPlatform } from './target-platform';

export const linuxPlatform: OsPlatform = {
  runsInHostSandbox: true,
  create: ({ target, sandbox }) =>
    Promise.resolve({
      capabilities: {
        timing: 'native',
        memoryProfile: true,
        topDown: true,
        cachegrind: true,
        sampledProfile: true,
      },
      toolchain: target.toolchain,
      buildMounts: [],
      runSandbox: sandbox,
      osLabel: null,
      sandboxLabel: sandbox.kind,
      notes: [],
    }),
  // Nothing here emulates Linux elsewhere.
  emulatedOn: () => false,
  emulator: () => Promise.resolve(null),
  emulation: () => {
    throw new Error('the Linux platform has no emulation');
  },
};
