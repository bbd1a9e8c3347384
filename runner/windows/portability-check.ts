// The portability pre-check's compile: a Linux runner cross-compiles template + patch for the
// windows-amd target with MinGW-w64, inside its sandbox with the build limits (a few seconds). What
// the outcome is for, and where it is kept, is the runner process's business
// (runner/service/portability-check.ts): this part runs without a queue.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { PORTABILITY_LOG_CHARS, type TargetId } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { buildChallengeTree, firstErrorLine, solutionReuse } from '../build';
import { intakePatch } from '../intake';
import { BUILD_ENV, sandboxedExecutor } from '../build/sandboxed-executor';
import type { Sandbox } from '../sandbox/sandbox';
import { MINGW_TOOLCHAIN_FILE, mingwBuild } from './mingw-toolchain';

export interface CrossCompileOptions {
  challenge: Challenge;
  patchText: string;
  /** The Linux sandbox the compiler runs in. */
  sandbox: Sandbox;
  /** Parent of the check's scratch folder (reachable by the sandbox user). */
  workRoot: string;
  /** Where the compile cache is kept (runner/build/compile-cache.ts). */
  dataDir: string;
  signal?: AbortSignal;
}

export interface CrossCompileOutcome {
  /** The target the check stands for. */
  target: typeof PORTABILITY_TARGET;
  ok: boolean;
  firstError: string | null;
  log: string;
  compiler: string;
}

/** The target a cross-compile checks a patch for. */
export const PORTABILITY_TARGET = 'windows-amd' satisfies TargetId;

/**
 * Cross-compiles template + patch for the windows-amd target. null when there is nothing to say:
 * no such target, a patch the intake rejects (the Windows judging rejects it itself), or a
 * build-tool fault (not the contestant's, so it must not settle anything).
 */
export async function crossCompileForWindows(
  options: CrossCompileOptions,
): Promise<CrossCompileOutcome | null> {
  const target = options.challenge.manifest.targets[PORTABILITY_TARGET];
  if (!target) return null;
  const mingw = mingwBuild(target.toolchain);
  const dir = await mkdtemp(path.join(options.workRoot, 'portability-'));
  // The sandbox user must reach box/ through it (the judge's scratch folder is the same).
  await chmod(dir, 0o755);
  try {
    // The judge's layout (box/src), so the error line loses the folder the same way (firstErrorLine).
    const box = path.join(dir, 'box');
    const srcDir = path.join(box, 'src');
    const intake = await intakePatch({
      patchText: options.patchText,
      challenge: options.challenge,
      destDir: srcDir,
    });
    if (!intake.ok) return null;
    const reuse = await solutionReuse({
      sandboxKind: options.sandbox.kind,
      challenge: options.challenge,
      toolchain: mingw.toolchain,
      platform: mingw.platform,
      dataDir: options.dataDir,
      boxDir: box,
      signal: options.signal,
    });
    const build = await buildChallengeTree({
      challenge: options.challenge,
      sourceDir: srcDir,
      toolchain: mingw.toolchain,
      platform: mingw.platform,
      solution: true,
      outDir: path.join(box, 'build'),
      env: { ...BUILD_ENV },
      ...(reuse ? { reuse } : {}),
      executor: sandboxedExecutor({
        sandbox: options.sandbox,
        workDir: box,
        readOnly: [
          { host: options.challenge.harnessDir, sandbox: options.challenge.harnessDir },
          { host: MINGW_TOOLCHAIN_FILE, sandbox: MINGW_TOOLCHAIN_FILE },
          ...(reuse?.mounts ?? []),
        ],
        limits: options.challenge.manifest.limits,
      }),
      signal: options.signal,
    });
    if (!build.ok && build.failure !== 'compile') return null;
    return {
      target: PORTABILITY_TARGET,
      ok: build.ok,
      firstError: build.ok ? null : firstErrorLine(build.log),
      log: build.log.slice(0, PORTABILITY_LOG_CHARS),
      compiler: mingw.summary.slice(0, 500),
    };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
