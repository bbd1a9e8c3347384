// The emulated windows-amd build: the manifest's MSVC-style (clang-cl) flags mapped, one by one, to
// the GCC spelling MinGW-w64 understands. An unknown flag is refused rather than dropped, so what is
// measured is never silently different from what the manifest says; the mapping is recorded in the
// result's build log and warnings.
import { AppError } from '../../contracts';
import { fileURLToPath } from 'node:url';
import type { Toolchain } from '../../contracts';
import type { BuildPlatform } from '../build/build-tree';

export const MINGW_TOOLCHAIN_FILE = fileURLToPath(
  new URL('./mingw-w64-x86_64.cmake', import.meta.url),
);
export const MINGW_CXX = 'x86_64-w64-mingw32-g++-posix';

/** clang-cl's /arch:AVX2 turns on these features (clang's X86 target for the AVX2 level). */
const ARCH_FLAGS: Record<string, string[]> = {
  AVX2: ['-mavx2', '-mfma', '-mbmi', '-mbmi2', '-mlzcnt', '-mf16c', '-mmovbe', '-mpopcnt'],
  AVX: ['-mavx', '-mpopcnt'],
  AVX512: ['-mavx512f', '-mavx512cd', '-mavx512bw', '-mavx512dq', '-mavx512vl', '-mavx2', '-mfma'],
};

export interface FlagMapping {
  from: string;
  to: string[];
  note?: string;
}

/** Maps one MSVC-style flag; null when there is no honest GCC equivalent. */
export function mapMsvcFlag(flag: string): FlagMapping | null {
  const f = flag.startsWith('-') ? `/${flag.slice(1)}` : flag;
  const define = /^\/D(.+)$/.exec(f);
  if (define) return { from: flag, to: [`-D${define[1]}`] };
  const std = /^\/std:(c\+\+\d\d|c\+\+latest)$/.exec(f);
  if (std) return { from: flag, to: [`-std=${std[1] === 'c++latest' ? 'c++2b' : std[1]}`] };
  const arch = /^\/arch:(\w+)$/.exec(f);
  if (arch && ARCH_FLAGS[arch[1]!]) return { from: flag, to: ARCH_FLAGS[arch[1]!]! };
  switch (f) {
    case '/O2':
      // MSVC's /O2 is "maximize speed"; GCC's -O2 is its counterpart (clang-cl maps /O2 to -O2 too).
      return { from: flag, to: ['-O2'] };
    case '/Ox':
      return { from: flag, to: ['-O2'] };
    case '/O1':
      return { from: flag, to: ['-Os'] };
    case '/Od':
      return { from: flag, to: ['-O0'] };
    case '/Ob3':
    case '/Ob2':
      return {
        from: flag,
        to: ['-finline-functions'],
        note: 'GCC has no inlining level 3; -finline-functions is its most aggressive standard setting',
      };
    case '/Ob1':
      return { from: flag, to: ['-fno-inline-functions'] };
    case '/Ob0':
      return { from: flag, to: ['-fno-inline'] };
    case '/EHsc':
      // C++ exceptions on, extern "C" assumed not to throw: GCC's default model is the same.
      return { from: flag, to: ['-fexceptions'] };
    case '/GR':
      return { from: flag, to: ['-frtti'] };
    case '/GR-':
      return { from: flag, to: ['-fno-rtti'] };
    case '/fp:fast':
      return { from: flag, to: ['-ffast-math'] };
    case '/fp:precise':
      return { from: flag, to: [] };
    case '/Oi':
      return { from: flag, to: [], note: 'GCC expands intrinsics by default' };
    case '/GL':
      return { from: flag, to: ['-flto'] };
    default:
      return null;
  }
}

export interface MingwBuild {
  toolchain: Toolchain;
  platform: BuildPlatform;
  mapping: FlagMapping[];
  /** One line for the report: what was actually used instead of the manifest's flags. */
  summary: string;
}

export class UnmappableFlagError extends AppError {
  override name = 'UnmappableFlagError';
  readonly code = 'config' as const;
}

/** The MinGW-w64 toolchain for a clang-cl target, or throws naming the flag that cannot be mapped. */
export function mingwBuild(toolchain: Toolchain): MingwBuild {
  if (toolchain.kind !== 'clang-cl')
    // Already GCC/Clang-style: only the compiler changes.
    return finish(
      toolchain,
      toolchain.flags.map((f) => ({ from: f, to: [f] })),
    );
  const mapping = toolchain.flags.map((flag) => {
    const m = mapMsvcFlag(flag);
    if (!m)
      throw new UnmappableFlagError(
        `the manifest's flag ${flag} has no MinGW-w64 equivalent: the emulated target cannot build it`,
      );
    return m;
  });
  return finish(toolchain, mapping);
}

function finish(toolchain: Toolchain, mapping: FlagMapping[]): MingwBuild {
  const flags = mapping.flatMap((m) => m.to);
  return {
    toolchain: { kind: 'gcc', cxx: MINGW_CXX, flags: flags.length ? flags : ['-O2'] },
    platform: {
      configureArgs: [`-DCMAKE_TOOLCHAIN_FILE=${MINGW_TOOLCHAIN_FILE}`],
      exeSuffix: '.exe',
    },
    mapping,
    summary:
      `emulated build: ${MINGW_CXX} with ${flags.join(' ')} (mapped from ${toolchain.flags.join(' ')}` +
      `; static runtime)` +
      mapping
        .filter((m) => m.note)
        .map((m) => `; ${m.from}: ${m.note}`)
        .join(''),
  };
}

/** Whether this host can cross-compile for Windows at all (MinGW-w64 installed). */
export async function canCrossCompile(): Promise<boolean> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) =>
    execFile(MINGW_CXX, ['--version'], { timeout: 10_000 }, (error) => resolve(!error)),
  );
}

let versionLine: Promise<string> | undefined;

/**
 * The first line of the cross-compiler's `--version` (e.g. `x86_64-w64-mingw32-g++-posix (GCC)
 * 12-posix`), asked once per process: part of what decides a cross-compile's outcome, so a kept
 * outcome is only reused by the same compiler (an upgrade may accept or refuse what the old one
 * did). "unavailable" when it cannot be run (nothing then cross-compiles on this host anyway).
 */
export function mingwVersion(): Promise<string> {
  versionLine ??= import('node:child_process').then(
    ({ execFile }) =>
      new Promise<string>((resolve) =>
        execFile(MINGW_CXX, ['--version'], { timeout: 10_000 }, (error, stdout) => {
          const first = String(stdout).split('\n')[0]?.trim().slice(0, 200);
          resolve(error || !first ? 'unavailable' : first);
        }),
      ),
  );
  return versionLine;
}
