// The build steps every judging and every final session shares: the baseline from the pristine
// template (trusted, cached by what determines it) and a contestant's patched tree built inside the
// sandbox, its executable then taken out of the sandbox's reach.
import path from 'node:path';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import {
  buildChallengeTree,
  cachedBuild,
  solutionReuse,
  type BuildResult,
  type CachedBuildResult,
} from '../build';
import type { Sandbox } from '../sandbox/sandbox';
import type { TargetPlatform } from '../platform';
import { takeBinary } from './binaries';
import { JudgeError, JudgingCancelledError } from './errors';
import { BUILD_ENV, sandboxedExecutor } from '../build/sandboxed-executor';

export type BaselineBuild = CachedBuildResult & { binary: string };

/** The baseline's binary (built once per toolchain and template, then cached); a failure is the judge's. */
export async function buildBaseline(options: {
  challenge: Challenge;
  platform: TargetPlatform;
  dataDir: string;
  signal?: AbortSignal;
}): Promise<BaselineBuild> {
  const { challenge, platform } = options;
  const baseline = await cachedBuild({
    challenge,
    sourceDir: challenge.templateDir,
    toolchain: platform.toolchain,
    platform: platform.build,
    solution: false,
    cacheRoot: path.join(options.dataDir, 'builds'),
    signal: options.signal,
  });
  if (!baseline.ok || !baseline.binary) {
    throw new JudgeError(
      `the baseline did not build: ${baseline.message ?? 'unknown error'}\n${baseline.log}`,
    );
  }
  return baseline as BaselineBuild;
}

export interface SolutionBuild {
  /** The build as it ran; `ok` is false too when it produced no regular executable. */
  build: BuildResult;
  /** The executable copied out of the sandbox's folder, or null when there is none. */
  binary: string | null;
  /** The sandbox limit that stopped the build (or 'time' for its timeout), else null. */
  limitExceeded: string | null;
}

/**
 * Builds a contestant's tree (`<boxDir>/src`) in the sandbox into `<boxDir>/build`, with the
 * manifest's build limits and only the harness (and the platform's files) visible read-only.
 * What the patch leaves unchanged comes from the trusted compile cache, read-only
 * (runner/build/compile-cache.ts). A failing toolchain is the platform's fault (JudgeError); a
 * failing build is the contestant's.
 */
export async function buildSolution(options: {
  challenge: Challenge;
  platform: TargetPlatform;
  sandbox: Sandbox;
  /** The sandbox's only writable folder: holds `src/` (the patched tree) and `build/`. */
  boxDir: string;
  /** Where the compile cache is kept (`<dataDir>/compile-cache`). */
  dataDir: string;
  /** Where the executable is copied to, out of the sandbox's reach. */
  workDir: string;
  /** The copy's file name in workDir (default "solution"). */
  binaryName?: string;
  signal?: AbortSignal;
}): Promise<SolutionBuild> {
  const { challenge, platform, boxDir } = options;
  let buildLimit: string | null = null;
  const reuse = await solutionReuse({
    sandboxKind: options.sandbox.kind,
    challenge,
    toolchain: platform.toolchain,
    platform: platform.build,
    dataDir: options.dataDir,
    boxDir,
    signal: options.signal,
  });
  if (options.signal?.aborted) throw new JudgingCancelledError();
  const build = await buildChallengeTree({
    challenge,
    sourceDir: path.join(boxDir, 'src'),
    toolchain: platform.toolchain,
    platform: platform.build,
    solution: true,
    outDir: path.join(boxDir, 'build'),
    env: { ...BUILD_ENV },
    ...(reuse ? { reuse } : {}),
    executor: sandboxedExecutor({
      sandbox: options.sandbox,
      workDir: boxDir,
      readOnly: [
        { host: challenge.harnessDir, sandbox: challenge.harnessDir },
        ...platform.buildMounts,
        ...(reuse?.mounts ?? []),
      ],
      limits: challenge.manifest.limits,
      onLimit: (limit) => (buildLimit = limit),
    }),
    signal: options.signal,
  });
  if (options.signal?.aborted) throw new JudgingCancelledError();
  if (!build.ok && (build.failure === 'tool' || build.failure === 'unsupported')) {
    throw new JudgeError(`the build tools failed: ${build.message ?? ''}\n${build.log}`);
  }
  // The build ran untrusted code: take the binary out of its reach, refusing anything but a file.
  const binary =
    build.ok && build.binary
      ? await takeBinary(build.binary, options.workDir, options.binaryName)
      : null;
  if (build.ok && !binary) {
    build.ok = false;
    build.log += '\nthe build did not produce a regular executable file\n';
  }
  return {
    build,
    binary,
    limitExceeded: buildLimit ?? (build.failure === 'timeout' ? 'time' : null),
  };
}
