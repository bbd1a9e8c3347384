// The portability pre-check. Where it fits, and why:
//
// A Linux runner (linux-intel, or an emulated windows-amd one) that takes a judging of a challenge
// with a windows-amd target first cross-compiles the patch with MinGW-w64 (inside its bubblewrap
// sandbox, with the build limits: a few seconds) and leaves the outcome in Redis under the
// submission's round. The windows-amd runner looks there before building: a failed check settles
// its judging at once as BUILD_ERROR with the compiler's message, so a Windows host spends
// milliseconds on it instead of a build. Redis is the only thing runners share (they have no
// database), and the check is only a shortcut: when the Windows job is taken before the check is
// there (or it was lost), that runner simply builds, and its compiler gives the verdict — the
// result is the same either way, only slower. A passing check settles nothing: MinGW accepting a
// patch does not prove clang-cl does.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Redis } from 'ioredis';
import {
  emptyStages,
  newJudgingResult,
  PORTABILITY_LOG_CHARS,
  portabilityCheckSchema,
  portabilityKey,
  type HostFingerprint,
  type JudgingJob,
  type JudgingResult,
  type PortabilityCheck,
} from '../../contracts';
import type { Challenge } from '../../lib/challenge/load-manifest';
import { buildChallengeTree } from '../build';
import { intakePatch } from '../intake';
import { firstErrorLine } from '../judge/judge';
import { BUILD_PATH, sandboxedExecutor } from '../judge/sandboxed-executor';
import { decideVerdict } from '../judge/verdict';
import type { Sandbox } from '../sandbox/sandbox';
import { MINGW_TOOLCHAIN_FILE, mingwBuild } from './mingw-toolchain';
import type { PortabilityRole } from './target-platform';

/** Checks stay as long as a judging job may wait in its queue. */
const CHECK_TTL_SECONDS = 7 * 24 * 3600;

export interface CrossCompileOptions {
  challenge: Challenge;
  patchText: string;
  /** The Linux sandbox the compiler runs in. */
  sandbox: Sandbox;
  /** Parent of the check's scratch folder (reachable by the sandbox user). */
  workRoot: string;
  signal?: AbortSignal;
}

export interface CrossCompileOutcome {
  ok: boolean;
  firstError: string | null;
  log: string;
  compiler: string;
}

export { canCrossCompile } from './mingw-toolchain';

/**
 * Cross-compiles template + patch for the windows-amd target. null when there is nothing to say:
 * no such target, a patch the intake rejects (the Windows judging rejects it itself), or a
 * build-tool fault (not the contestant's, so it must not settle anything).
 */
export async function crossCompileForWindows(
  options: CrossCompileOptions,
): Promise<CrossCompileOutcome | null> {
  const target = options.challenge.manifest.targets['windows-amd'];
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
    const build = await buildChallengeTree({
      challenge: options.challenge,
      sourceDir: srcDir,
      toolchain: mingw.toolchain,
      platform: mingw.platform,
      solution: true,
      outDir: path.join(box, 'build'),
      env: { PATH: BUILD_PATH, HOME: '/tmp', LC_ALL: 'C', TMPDIR: '/tmp' },
      executor: sandboxedExecutor({
        sandbox: options.sandbox,
        workDir: box,
        readOnly: [
          { host: options.challenge.harnessDir, sandbox: options.challenge.harnessDir },
          { host: MINGW_TOOLCHAIN_FILE, sandbox: MINGW_TOOLCHAIN_FILE },
        ],
        limits: options.challenge.manifest.limits,
      }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!build.ok && build.failure !== 'compile') return null;
    return {
      ok: build.ok,
      firstError: build.ok ? null : firstErrorLine(build.log),
      log: build.log.slice(0, PORTABILITY_LOG_CHARS),
      compiler: mingw.summary.slice(0, 500),
    };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

export async function publishPortabilityCheck(
  redis: Redis,
  prefix: string,
  check: PortabilityCheck,
): Promise<void> {
  const value = portabilityCheckSchema.parse(check);
  await redis.set(
    portabilityKey(prefix, value.submissionId, value.round, value.target),
    JSON.stringify(value),
    'EX',
    CHECK_TTL_SECONDS,
  );
}

/** The check of this job's submission round, when a Linux runner left a valid one. */
export async function readPortabilityCheck(
  redis: Redis,
  prefix: string,
  job: JudgingJob,
): Promise<PortabilityCheck | null> {
  const text = await redis.get(portabilityKey(prefix, job.submissionId, job.round, job.target));
  if (text === null) return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = portabilityCheckSchema.safeParse(data);
  return parsed.success && parsed.data.target === job.target ? parsed.data : null;
}

/** The BUILD_ERROR a failed check settles the Windows judging with, without building here. */
export function settledByPortabilityCheck(
  job: JudgingJob,
  check: PortabilityCheck,
  host: HostFingerprint,
  started: Date,
): JudgingResult {
  const decision = decideVerdict({
    intake: { ok: true },
    build: { ok: false, limitExceeded: null, firstError: check.firstError },
  });
  const stages = emptyStages();
  stages.intake = { ok: true, reason: null, files: [], format: null };
  const log =
    `[portability pre-check on a Linux host (runner ${check.runnerId}, ${check.checkedAt}): ` +
    `${check.compiler}]\n${check.log}`;
  stages.build = {
    baseline: {
      ok: true,
      cached: true,
      durationMs: 0,
      log: '',
      binarySha256: null,
      limitExceeded: null,
    },
    solution: {
      ok: false,
      cached: false,
      durationMs: 0,
      log,
      binarySha256: null,
      limitExceeded: null,
    },
    identicalBinaries: false,
  };
  return {
    ...newJudgingResult({
      judgingId: job.judgingId,
      challenge: job.challenge,
      target: job.target,
      host,
      startedAt: started,
      finishedAt: new Date(),
      message: decision.reason,
      warnings: [
        'settled by the portability pre-check: the patch does not cross-compile for Windows, so it was not built on this host',
        ...decision.warnings,
      ],
    }),
    verdict: decision.verdict,
    stages,
  };
}

/** A step before the build: a result settles the judging without building, null goes on. */
export type JudgingPreCheck = (
  data: JudgingJob,
  challenge: Challenge,
  note: (line: string) => void,
  signal: AbortSignal | undefined,
) => Promise<JudgingResult | null>;

export interface PreCheckOptions {
  redis: Redis;
  prefix: string;
  /** The Linux sandbox a cross-compile runs in, and the parent of its scratch folder. */
  sandbox: Sandbox;
  workRoot: string;
  runnerId: string;
  /** Host facts for a result settled without building. */
  host: HostFingerprint;
}

/**
 * The pre-check step of a runner's judgings for its role (target-platform.ts hostPlatform): the
 * Linux side cross-compiles for windows-amd and publishes the outcome; the windows-amd side settles
 * its judging from a failed check without building. Never fatal: a Redis or tool failure only
 * means the shortcut is not taken.
 */
export function portabilityPreCheck(
  role: PortabilityRole,
  options: PreCheckOptions,
): JudgingPreCheck {
  return async (data, challenge, note, signal) => {
    const started = new Date();
    try {
      if (role === 'settles') return await settleFromCheck(data, options, note, started);
      if (challenge.manifest.targets['windows-amd'])
        await crossCompileAndPublish(data, challenge, options, note, signal, started);
    } catch (error) {
      note(`portability pre-check skipped: ${(error as Error).message}`);
    }
    return null;
  };
}

async function settleFromCheck(
  data: JudgingJob,
  options: PreCheckOptions,
  note: (line: string) => void,
  started: Date,
): Promise<JudgingResult | null> {
  const check = await readPortabilityCheck(options.redis, options.prefix, data);
  if (!check || check.ok) return null;
  note(`the portability pre-check of ${check.runnerId} failed: BUILD_ERROR without building`);
  return settledByPortabilityCheck(data, check, options.host, started);
}

async function crossCompileAndPublish(
  data: JudgingJob,
  challenge: Challenge,
  options: PreCheckOptions,
  note: (line: string) => void,
  signal: AbortSignal | undefined,
  started: Date,
): Promise<void> {
  const outcome = await crossCompileForWindows({
    challenge,
    patchText: data.patchText,
    sandbox: options.sandbox,
    workRoot: options.workRoot,
    ...(signal ? { signal } : {}),
  });
  if (!outcome) return;
  await publishPortabilityCheck(options.redis, options.prefix, {
    submissionId: data.submissionId,
    round: data.round,
    target: 'windows-amd',
    ok: outcome.ok,
    firstError: outcome.firstError,
    log: outcome.log,
    compiler: outcome.compiler,
    runnerId: options.runnerId,
    checkedAt: new Date().toISOString(),
  });
  const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(1);
  note(
    `portability pre-check for windows-amd: ${
      outcome.ok ? 'cross-compiles' : `does not build (${outcome.firstError ?? 'see its log'})`
    } in ${seconds} s`,
  );
}
