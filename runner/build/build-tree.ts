// Builds a contestant's tree (or the pristine template) with the challenge's protected harness:
// cmake configure + build with Ninja, using exactly the manifest's compiler and flags.
import { cp, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Toolchain } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { formatCommand, spawnExecutor, type CommandExecutor, type CommandResult } from './executor';

/**
 * Why a build failed. `compile` and `timeout` are the contestant's (compile errors, a compiler
 * bomb); `tool` and `unsupported` are the platform's (a missing or broken toolchain); `aborted` is
 * the caller's.
 */
export type BuildFailure = 'compile' | 'timeout' | 'aborted' | 'tool' | 'unsupported';

export interface BuildTreeOptions {
  challenge: Challenge;
  /** The tree whose .cpp files are compiled with the harness (template plus patch, or the template). */
  sourceDir: string;
  toolchain: Toolchain;
  /** Build the SOLUTION branch (-DSOLUTION), or the baseline. */
  solution: boolean;
  /** The CMake build folder; created when missing, reused (incremental) when it exists. */
  outDir: string;
  executor?: CommandExecutor;
  /** For configure and build together; defaults to the manifest's limits.buildSeconds. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The complete environment of cmake and the compiler; the executor's default when omitted. */
  env?: Record<string, string>;
  /** The cmake executable; `cmake` from PATH by default. */
  cmake?: string;
  /** How the target platform builds, when it is not this host's own (a Windows cross build). */
  platform?: BuildPlatform;
  /** Work reused from trusted builds (runner/build/compile-cache.ts); needs `env`. */
  reuse?: BuildReuse;
}

/**
 * What a build reuses: a compiler launcher's settings and configure arguments, and cmake's
 * detection results copied into the build folder before it is configured.
 */
export interface BuildReuse {
  /** Added to `env`. */
  env: Record<string, string>;
  /** Added to the configure command, where the log shows them. */
  configureArgs: string[];
  /** Added to the build command (`cmake --build`). */
  buildArgs?: string[];
  /** A folder whose contents are copied into the build folder first. */
  seedDir?: string;
}

/**
 * What a target platform adds to the harness's build: more configure arguments (a cross toolchain
 * file) and the executable's suffix. The native Linux build needs none.
 */
export interface BuildPlatform {
  configureArgs: string[];
  exeSuffix: string;
}

export interface BuildResult {
  ok: boolean;
  /** The built executable, when ok. */
  binary?: string;
  /** Every command line with its output (configure, then build): what a contestant is shown. */
  log: string;
  durationMs: number;
  /** The command lines that were run, in order. */
  commands: string[];
  failure?: BuildFailure;
  /** One line saying why the build failed, when it did. */
  message?: string;
}

/** By convention a challenge's harness names its executable after the challenge's slug. */
export function binaryName(challenge: Challenge, platform?: BuildPlatform): string {
  const suffix = platform?.exeSuffix ?? (process.platform === 'win32' ? '.exe' : '');
  return `${challenge.manifest.slug}${suffix}`;
}

function defaultBuildTimeoutMs(challenge: Challenge): number {
  return challenge.manifest.limits.buildSeconds * 1000;
}

/** Why this host cannot build with the toolchain, or undefined when it can. */
export function unsupportedToolchain(toolchain: Toolchain): string | undefined {
  if (toolchain.kind === 'clang-cl')
    return (
      `toolchain ${toolchain.kind} (${toolchain.cxx}) is not supported by this host yet: ` +
      'Windows builds need a Windows judge host'
    );
  return undefined;
}

/** The cmake arguments of the configure step: the harness's contract (see its CMakeLists.txt). */
function configureArgs(options: {
  harnessDir: string;
  outDir: string;
  sourceDir: string;
  toolchain: Toolchain;
  solution: boolean;
}): string[] {
  return [
    '-G',
    'Ninja',
    '-S',
    options.harnessDir,
    '-B',
    options.outDir,
    // A bare name is looked up on the PATH of cmake's environment by cmake itself.
    `-DCMAKE_CXX_COMPILER=${options.toolchain.cxx}`,
    `-DPJ_SOURCE_DIR=${path.resolve(options.sourceDir)}`,
    `-DPJ_SOLUTION=${options.solution ? 'ON' : 'OFF'}`,
    `-DPJ_FLAGS=${options.toolchain.flags.join(';')}`,
  ];
}

function failed(
  started: number,
  log: string,
  commands: string[],
  failure: BuildFailure,
  message: string,
): BuildResult {
  return {
    ok: false,
    log: log || `${message}\n`,
    durationMs: performance.now() - started,
    commands,
    failure,
    message,
  };
}

function describeStep(step: string, result: CommandResult, timeoutMs: number): string {
  if (result.spawnError) return result.spawnError;
  if (result.timedOut) return `${step} timed out after ${(timeoutMs / 1000).toFixed(0)} s`;
  if (result.aborted) return `${step} was cancelled`;
  if (result.signal) return `${step} was killed by ${result.signal}`;
  return `${step} failed with exit code ${result.exitCode}`;
}

export async function buildChallengeTree(options: BuildTreeOptions): Promise<BuildResult> {
  const started = performance.now();
  const { challenge, toolchain } = options;
  const commands: string[] = [];
  let log = '';

  const unsupported = unsupportedToolchain(toolchain);
  if (unsupported) return failed(started, log, commands, 'unsupported', unsupported);
  const badFlag = toolchain.flags.find((f) => f.includes(';'));
  if (badFlag !== undefined)
    return failed(
      started,
      log,
      commands,
      'tool',
      `compiler flag ${JSON.stringify(badFlag)} contains ";", which cmake would split`,
    );

  const executor = options.executor ?? spawnExecutor;
  const cmake = options.cmake ?? 'cmake';
  const timeoutMs = options.timeoutMs ?? defaultBuildTimeoutMs(challenge);
  const deadline = started + timeoutMs;
  const outDir = path.resolve(options.outDir);
  await mkdir(outDir, { recursive: true });
  const { reuse } = options;
  if (reuse?.seedDir) await cp(reuse.seedDir, outDir, { recursive: true });
  const env = reuse ? { ...options.env, ...reuse.env } : options.env;

  const steps: Array<{ name: string; args: string[]; failure: BuildFailure }> = [
    {
      name: 'configure',
      args: configureArgs({
        harnessDir: challenge.harnessDir,
        outDir,
        sourceDir: options.sourceDir,
        toolchain,
        solution: options.solution,
      }).concat(options.platform?.configureArgs ?? [], reuse?.configureArgs ?? []),
      // The contestant's tree cannot make configure fail (it only globs their files): a failure
      // here is a broken toolchain or host.
      failure: 'tool',
    },
    {
      name: 'build',
      args: ['--build', outDir, '--verbose', ...(reuse?.buildArgs ?? [])],
      failure: 'compile',
    },
  ];

  for (const step of steps) {
    const commandLine = formatCommand(cmake, step.args);
    commands.push(commandLine);
    const remaining = Math.max(deadline - performance.now(), 1);
    const result = await executor(cmake, step.args, {
      cwd: outDir,
      timeoutMs: remaining,
      env,
      signal: options.signal,
    });
    log += `$ ${commandLine}\n${result.output}${result.output.endsWith('\n') || !result.output ? '' : '\n'}`;
    if (result.exitCode === 0 && !result.timedOut && !result.aborted) continue;

    const message = describeStep(step.name, result, timeoutMs);
    const failure: BuildFailure = result.timedOut
      ? 'timeout'
      : result.aborted
        ? 'aborted'
        : result.spawnError
          ? 'tool'
          : step.failure;
    return failed(started, `${log}${message}\n`, commands, failure, message);
  }

  const binary = path.join(outDir, binaryName(challenge, options.platform));
  const built = await stat(binary).catch(() => undefined);
  if (!built?.isFile())
    return failed(
      started,
      log,
      commands,
      'tool',
      `the build succeeded but produced no ${binaryName(challenge, options.platform)}`,
    );
  return { ok: true, binary, log, durationMs: performance.now() - started, commands };
}

/** The compiler's or linker's first error line, for the one-sentence verdict message. */
export function firstErrorLine(log: string): string | null {
  const line = log
    .split('\n')
    .find((l) => /\berror\b|undefined reference/i.test(l) && !l.startsWith('$ '));
  if (!line) return null;
  // Paths of the judge's work folder mean nothing to the contestant.
  const trimmed = line.replace(/^\S*\/box\/src\//, '').trim();
  return trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
}
