// The portability pre-check, the runner process's side: where its outcome is kept (Redis) and what
// each runner does with it. Where it fits, and why:
//
// A Linux runner (linux-intel, or an emulated windows-amd one) that takes a judging of a challenge
// with a windows-amd target first cross-compiles the patch with MinGW-w64
// (runner/windows/portability-check.ts: in its bubblewrap sandbox, with the build limits, a few
// seconds) and leaves the outcome in Redis under the submission's round. The windows-amd runner
// looks there before building: a failed check settles its judging at once as BUILD_ERROR with the
// compiler's message, so a Windows host spends milliseconds on it instead of a build. Redis is the only thing runners share (they have no
// database), and the check is only a shortcut: when the Windows job is taken before the check is
// there (or it was lost), that runner simply builds, and its compiler gives the verdict — the
// result is the same either way, only slower. A passing check settles nothing: MinGW accepting a
// patch does not prove clang-cl does.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import {
  emptyStages,
  portabilityCheckSchema,
  portabilityKey,
  type HostFingerprint,
  type JudgingJob,
  type JudgingResult,
  type PortabilityCheck,
} from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { decideVerdict } from '../judge/verdict';
import { jobResult } from './judging-processor';
import type { PortabilityRole } from '../platform';
import type { Sandbox } from '../sandbox/sandbox';
import { mingwVersion } from '../windows/mingw-toolchain';
import { crossCompileForWindows } from '../windows/portability-check';

/** Checks stay as long as a judging job may wait in its queue. */
const CHECK_TTL_SECONDS = 7 * 24 * 3600;

/** A kept cross-compile outcome, checked on the way back in (Redis is outside the process). */
const crossCompileOutcomeSchema = portabilityCheckSchema
  .pick({ target: true, ok: true, firstError: true, log: true, compiler: true })
  .extend({ target: z.literal('windows-amd') });

async function publishPortabilityCheck(
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
async function readPortabilityCheck(
  redis: Redis,
  prefix: string,
  job: JudgingJob,
): Promise<PortabilityCheck | null> {
  const key = portabilityKey(prefix, job.submissionId, job.round, job.target);
  const check = await readKept(redis, key, portabilityCheckSchema);
  return check?.target === job.target ? check : null;
}

/** A value kept in Redis under `key` when it is there and valid (Redis is outside the process). */
async function readKept<T>(redis: Redis, key: string, schema: z.ZodType<T>): Promise<T | null> {
  const text = await redis.get(key);
  if (text === null) return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(data);
  return parsed.success ? parsed.data : null;
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
    ...jobResult(job, host, started, {
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
  /** Where the compile cache is kept (runner/build/compile-cache.ts). */
  dataDir: string;
  runnerId: string;
  /** Host facts for a result settled without building. */
  host: HostFingerprint;
}

/**
 * The pre-check step of a runner's judgings for its role (runner/platform hostPlatform): the
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

/**
 * Where the outcome of a cross-compile is kept by what decides it (the challenge's version, the
 * cross-compiler's version and the patch's bytes), so the same patch judged again (a rejudge, a
 * resubmission) is not compiled again, and a compiler upgrade does not reuse the old one's outcome.
 * `compiler`: the first line of its `--version` (default: this host's, runner/windows).
 */
export async function patchCheckKey(
  prefix: string,
  challenge: Challenge,
  patchText: string,
  compiler?: string,
): Promise<string> {
  const sha = createHash('sha256').update(patchText).digest('hex');
  const version = createHash('sha256')
    .update(compiler ?? (await mingwVersion()))
    .digest('hex')
    .slice(0, 16);
  return `${prefix}:portability-patch:${challenge.manifest.slug}@${challenge.manifest.version}:${version}:${sha}`;
}

async function crossCompileAndPublish(
  data: JudgingJob,
  challenge: Challenge,
  options: PreCheckOptions,
  note: (line: string) => void,
  signal: AbortSignal | undefined,
  started: Date,
): Promise<void> {
  const key = await patchCheckKey(options.prefix, challenge, data.patchText);
  const known = await readKept(options.redis, key, crossCompileOutcomeSchema);
  const outcome =
    known ??
    (await crossCompileForWindows({
      challenge,
      patchText: data.patchText,
      sandbox: options.sandbox,
      workRoot: options.workRoot,
      dataDir: options.dataDir,
      signal,
    }));
  if (!outcome) return;
  if (!known) await options.redis.set(key, JSON.stringify(outcome), 'EX', CHECK_TTL_SECONDS);
  await publishPortabilityCheck(options.redis, options.prefix, {
    submissionId: data.submissionId,
    round: data.round,
    target: outcome.target,
    ok: outcome.ok,
    firstError: outcome.firstError,
    log: outcome.log,
    compiler: outcome.compiler,
    runnerId: options.runnerId,
    checkedAt: new Date().toISOString(),
  });
  const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(1);
  note(
    `portability pre-check for ${outcome.target}: ${
      outcome.ok ? 'cross-compiles' : `does not build (${outcome.firstError ?? 'see its log'})`
    } ${known ? '(the same patch’s earlier check, not compiled again)' : `in ${seconds} s`}`,
  );
}
