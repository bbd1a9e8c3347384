// What differs between targets is only this adapter: how the build is configured, which sandbox
// runs the programs, what the host fingerprint says, and what the judge can ask of the host. The
// pipeline, statistics, verdicts and result schema are the same for every target
// (runner/judge/judge.ts). Each OS's platform is a leaf module behind this interface
// (linux-platform.ts, runner/windows/windows-platform.ts); index.ts picks one per target, so nothing
// above it tests an OS to decide what to run.
//
//   linux-intel on Linux     native: the manifest's toolchain, bubblewrap
//   windows-amd on Windows   native: clang-cl + the manifest's flags, the job helper in a Job Object
//   windows-amd on Linux     emulated (automatic when Wine is installed): MinGW-w64 with the flags
//                            mapped, the job helper under Wine in bubblewrap; every result is
//                            labelled emulated (HostFingerprint.emulated)
import type { Target, TargetId, Toolchain } from '../../contracts';
import type { BuildPlatform } from '../build/build-tree';
import type { Sandbox, SandboxMount } from '../sandbox/sandbox';

/** What the judge may ask of a target's platform on this host. */
export interface PlatformCapabilities {
  /**
   * 'emulated': the runs are not the target's hardware (Windows under Wine). Results say so and
   * are development mode; the programs' CPU time includes the emulator's own processes, so it
   * cannot judge disturbance or single-threadedness, and there are no counters.
   */
  timing: 'native' | 'emulated';
  /** The memory sampler (a Linux tool, for Linux binaries) can profile the programs. */
  memoryProfile: boolean;
  /** perf's Top-Down metric groups can run around the programs. */
  topDown: boolean;
  /** cachegrind can count the programs' instructions (deterministic mode). */
  cachegrind: boolean;
  /** perf record can sample the programs' call stacks from outside the sandbox. */
  sampledProfile: boolean;
}

export interface TargetPlatform {
  capabilities: PlatformCapabilities;
  /** What the builds are configured with (the manifest's, or its MinGW mapping). */
  toolchain: Toolchain;
  /** Extra configure arguments and the executable suffix of a cross build. */
  build?: BuildPlatform;
  /** Extra read-only files the sandboxed build needs (the CMake toolchain file). */
  buildMounts: SandboxMount[];
  /** Runs the built programs (tests, timed runs). */
  runSandbox: Sandbox;
  /** What the fingerprint records as the OS and the sandbox. */
  osLabel: string | null;
  sandboxLabel: string;
  /** Said in every result's warnings. */
  notes: string[];
  /**
   * Said in the measure stage's warnings when timing is 'emulated', in place of the counter and
   * single-thread checks the emulated runs cannot have (what the emulator does to both).
   */
  emulatedTimingNote?: string;
}

export interface PlatformOptions {
  target: Target;
  /** The host's own sandbox (bubblewrap on Linux): builds run in it, and emulated runs too. */
  sandbox: Sandbox;
  dataDir: string;
  log?: (line: string) => void;
}

/** How this host stands to a target: the same OS and CPU vendor, or an emulator for it. */
export interface TargetHostMatch {
  /** The host's OS and CPU vendor are the target's. */
  matches: boolean;
  /** The host runs the target's OS natively (its CPU may still differ: development mode). */
  sameOs: boolean;
  hostOs: string;
  hostVendor: string;
  /** What would emulate the target here (`wine --version` for Windows on Linux), or null. */
  emulator: string | null;
}

/**
 * A runner's part in the portability pre-check (runner/service/portability-check.ts): the
 * windows-amd runner settles a judging from a failed check; a Linux runner with MinGW-w64
 * cross-compiles for it.
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
  /** Judge a target emulated when this host can emulate it (default true). */
  emulate?: boolean;
  log?: (line: string) => void;
}

/** One OS's platform: what index.ts asks of it for a target of that OS. */
export interface OsPlatform {
  /**
   * A target of this OS builds programs the host's own sandbox runs natively, on any host that
   * has one (the noise probe times such a target's baseline).
   */
  runsInHostSandbox: boolean;
  /** The adapter that judges the target here; throws UnavailableError when none can. */
  create(options: PlatformOptions): Promise<TargetPlatform>;
  /** A target of this OS is judged emulated on a host running `hostOs` (when its emulator is there). */
  emulatedOn(hostOs: string): boolean;
  /** What would emulate a target of this OS on a host running `hostOs`, or null. */
  emulator(hostOs: string): Promise<string | null>;
  /** The emulation a runner warms up at start, given the emulator emulator() found. */
  emulation(options: HostPlatformOptions, by: string): Emulation;
}
