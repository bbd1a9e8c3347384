// The runner service's steps, each alone (runner/service): the start-up refusals and what the
// runner says about labelled results, the shutdown budget, a judging job's payload check and
// outcome (retry, hand back, final), and the portability pre-check step (its Redis side is the
// runner process's, runner/service/portability-check.ts).
import { createHash } from 'node:crypto';
import type { Job } from 'bullmq';
import { UnrecoverableError, WaitingError } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import {
  judgingJobSchema,
  judgingResultSchema,
  portabilityCheckSchema,
  newJudgingResult,
  portabilityKey,
  type HostFingerprint,
  type JudgingJob,
  type JudgingResult,
  type Target,
} from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import {
  hostModeLine,
  refuseDevelopmentKnobs,
  refuseHostMismatch,
  RunnerConfigError,
  shutdownBudget,
} from '../../runner/service/runner-service';
import {
  CANCEL_LOCK_LOST,
  CANCEL_NOT_COUNTING,
  CANCEL_SHUTDOWN,
  jobContext,
  judgingOutcome,
  parseJudgingJob,
  type CancelWatch,
  type JudgingSettings,
} from '../../runner/service/judging-processor';
import {
  portabilityPreCheck,
  settledByPortabilityCheck,
  patchCheckKey,
} from '../../runner/service/portability-check';
import { canCrossCompile, mingwVersion } from '../../runner/windows/mingw-toolchain';
import { hostPlatform } from '../../runner/platform';
import type { Sandbox } from '../../runner/sandbox/sandbox';

const host: HostFingerprint = {
  hostname: 'h',
  os: 'Linux',
  kernel: '6.1',
  cpuModel: 'm',
  cpuVendor: 'GenuineIntel',
  cores: 8,
  compiler: 'clang',
  governor: 'performance',
  turbo: 'off',
  sandbox: 'bubblewrap',
  pinnedCpu: 3,
  smtSiblings: [7],
  thp: 'madvise',
  perfVersion: 'perf version 6.1',
  hardwareCounters: true,
  hostDifferences: [],
  devMode: false,
  emulated: false,
};

const windows: Target = {
  os: 'windows',
  cpuVendor: 'AuthenticAMD',
  toolchain: { cxx: 'clang-cl', flags: ['/O2'] },
} as Target;

const sandbox = { kind: 'bubblewrap', check: async () => undefined } as unknown as Sandbox;

function settingsFor(overrides: Partial<JudgingSettings> = {}): JudgingSettings {
  return {
    target: 'linux-intel',
    runnerId: 'runner-1',
    sandbox,
    dataDir: '/nonexistent',
    workRoot: '/nonexistent',
    hostLockFile: '/nonexistent/lock',
    devMode: false,
    host,
    secret: () => undefined,
    handingBack: () => false,
    log: () => undefined,
    ...overrides,
  };
}

const jobData = {
  judgingId: 'j1',
  round: 0,
  submissionId: 's1',
  challenge: { slug: 'wordcount', version: 1 },
  target: 'linux-intel',
  patchText: '',
};

function fakeJob(data: unknown, options: { attempts?: number; attemptsMade?: number } = {}) {
  return {
    id: 'judging-j1-r0',
    data,
    opts: { attempts: options.attempts ?? 3 },
    attemptsMade: options.attemptsMade ?? 0,
    moveToWait: vi.fn(async () => 0),
  } as unknown as Job & { moveToWait: ReturnType<typeof vi.fn> };
}

function cancelWatch(reason?: string, message: string | null = null): CancelWatch {
  const controller = new AbortController();
  if (reason !== undefined) controller.abort(reason);
  return {
    signal: controller.signal,
    check: async () => message,
    message: () => message,
    stop: () => undefined,
  };
}

function resultWith(verdict: JudgingResult['verdict'], data: JudgingJob): JudgingResult {
  const result = newJudgingResult({
    judgingId: data.judgingId,
    challenge: data.challenge,
    target: data.target,
    host,
    startedAt: new Date(),
    finishedAt: new Date(),
    message: 'the host was too busy',
  });
  return { ...result, verdict, message: verdict === 'JUDGE_ERROR' ? result.message : '' };
}

describe('runner start-up steps', () => {
  it('refuse the development knobs outside development mode, naming them', () => {
    expect(() => refuseDevelopmentKnobs({ maxPairs: 3, deterministic: false }, false)).toThrow(
      new RunnerConfigError(
        '--runs, --no-deterministic change what is measured: only allowed with --dev-mode, whose results are labelled',
      ),
    );
    expect(() => refuseDevelopmentKnobs({ maxPairs: 3 }, true)).not.toThrow();
    expect(() => refuseDevelopmentKnobs({ deterministic: true }, false)).not.toThrow();
  });

  it('refuse a host that does not match the target, unless in development mode', () => {
    const mismatch = { matches: false, hostOs: 'linux', hostVendor: 'GenuineIntel' };
    expect(() => refuseHostMismatch('windows-amd', windows, mismatch, false)).toThrow(
      /this host \(linux, GenuineIntel\) does not match target windows-amd \(windows, AuthenticAMD\).*--dev-mode/,
    );
    expect(() => refuseHostMismatch('windows-amd', windows, mismatch, true)).not.toThrow();
  });

  it('say how results are labelled: emulated, development mode, or nothing', () => {
    const base = { matches: false, hostOs: 'linux', hostVendor: 'GenuineIntel' };
    const emulation = { by: 'wine-9.0', sandboxLabel: 'wine', warmUp: async () => undefined };
    expect(hostModeLine('windows-amd', windows, { ...base, emulation }, true)).toBe(
      'emulated: windows-amd (windows, AuthenticAMD) under wine-9.0 on this Linux host; ' +
        'development mode, every result is labelled emulated',
    );
    expect(hostModeLine('windows-amd', windows, { ...base, emulation: null }, true)).toMatch(
      /^development mode: this host \(linux, GenuineIntel\) is not windows-amd/,
    );
    expect(
      hostModeLine('windows-amd', windows, { ...base, matches: true, emulation: null }, true),
    ).toBe('development mode (the host matches windows-amd, but results are labelled anyway)');
    expect(
      hostModeLine('windows-amd', windows, { ...base, matches: true, emulation: null }, false),
    ).toBeNull();
  });

  it('fit the whole stop in the grace period, keeping at most 10 s to hand the job back', () => {
    expect(shutdownBudget(600)).toEqual({ totalMs: 600_000, handBackMs: 10_000, graceMs: 590_000 });
    expect(shutdownBudget(4)).toEqual({ totalMs: 4_000, handBackMs: 2_000, graceMs: 2_000 });
  });
});

describe('judging job steps', () => {
  it('fail a malformed payload or one for another target without retries', () => {
    const settings = settingsFor();
    expect(() => parseJudgingJob(fakeJob({ judgingId: 'j1' }), settings)).toThrow(
      UnrecoverableError,
    );
    expect(() => parseJudgingJob(fakeJob({ ...jobData, target: 'windows-amd' }), settings)).toThrow(
      /a job for target windows-amd on the queue of target linux-intel/,
    );
    expect(parseJudgingJob(fakeJob(jobData), settings).judgingId).toBe('j1');
  });

  it('retry a JUDGE_ERROR until the last attempt, which returns it', async () => {
    const data = judgingJobSchema.parse(jobData);
    const settings = settingsFor();
    const early = jobContext(fakeJob(jobData), 'token', data, settings, { log: () => undefined });
    await expect(
      judgingOutcome(early, cancelWatch(), resultWith('JUDGE_ERROR', data), new Date()),
    ).rejects.toThrow('JUDGE_ERROR (attempt 1 of 3): the host was too busy');

    const last = jobContext(fakeJob(jobData, { attemptsMade: 2 }), 'token', data, settings, {
      log: () => undefined,
    });
    const answer = await judgingOutcome(
      last,
      cancelWatch(),
      resultWith('JUDGE_ERROR', data),
      new Date(),
    );
    expect(answer).toMatchObject({ judgingId: 'j1', round: 0, runnerId: 'runner-1' });
    expect(answer.result.verdict).toBe('JUDGE_ERROR');
  });

  it('end, abandon or hand back a cancelled judging; a verdict reached before still stands', async () => {
    const data = judgingJobSchema.parse(jobData);
    const settings = settingsFor();
    const job = fakeJob(jobData);
    const context = jobContext(job, 'token', data, settings, { log: () => undefined });
    const error = resultWith('JUDGE_ERROR', data);
    await expect(
      judgingOutcome(context, cancelWatch(CANCEL_NOT_COUNTING, 'superseded'), error, new Date()),
    ).rejects.toThrow(new UnrecoverableError('superseded'));
    await expect(
      judgingOutcome(context, cancelWatch(CANCEL_LOCK_LOST), error, new Date()),
    ).rejects.toThrow(/the job lock was lost mid-judging/);
    await expect(
      judgingOutcome(context, cancelWatch(CANCEL_SHUTDOWN), error, new Date()),
    ).rejects.toBeInstanceOf(WaitingError);
    expect(job.moveToWait).toHaveBeenCalledWith('token');

    const accepted = await judgingOutcome(
      context,
      cancelWatch(CANCEL_SHUTDOWN),
      resultWith('ACCEPTED', data),
      new Date(),
    );
    expect(accepted.result.verdict).toBe('ACCEPTED');
  });
});

describe('the portability pre-check step', () => {
  const options = (redis: Partial<Redis>) => ({
    redis: redis as Redis,
    prefix: 'pj',
    sandbox,
    workRoot: '/nonexistent',
    dataDir: '/nonexistent',
    runnerId: 'runner-w',
    host,
  });

  it("settles a windows-amd judging from a Linux runner's failed check, without building", async () => {
    const challenge = await loadChallenge('wordcount');
    const data = judgingJobSchema.parse({
      ...jobData,
      target: 'windows-amd',
      challenge: { slug: 'wordcount', version: challenge.manifest.version },
    });
    const check = {
      submissionId: 's1',
      round: 0,
      target: 'windows-amd',
      ok: false,
      firstError: "main.cpp:3: error: 'unistd.h' not found",
      log: 'compiler output',
      compiler: 'x86_64-w64-mingw32-g++-posix',
      runnerId: 'runner-linux',
      checkedAt: new Date().toISOString(),
    };
    const get = vi.fn(async () => JSON.stringify(check));
    const notes: string[] = [];
    const settled = await portabilityPreCheck('settles', options({ get }))(
      data,
      challenge,
      (line) => notes.push(line),
      undefined,
    );
    expect(get).toHaveBeenCalledWith(portabilityKey('pj', 's1', 0, 'windows-amd'));
    expect(settled?.verdict).toBe('BUILD_ERROR');
    expect(notes).toEqual([
      'the portability pre-check of runner-linux failed: BUILD_ERROR without building',
    ]);

    const passed = vi.fn(async () => JSON.stringify({ ...check, ok: true, firstError: null }));
    expect(
      await portabilityPreCheck('settles', options({ get: passed }))(
        data,
        challenge,
        () => undefined,
        undefined,
      ),
    ).toBeNull();
  });

  it('reuses the outcome of the same patch checked before, without compiling again', async () => {
    const challenge = await loadChallenge('wordcount');
    const data = judgingJobSchema.parse({
      ...jobData,
      challenge: { slug: 'wordcount', version: challenge.manifest.version },
    });
    const store = new Map<string, string>();
    const redis = {
      get: vi.fn(async (key: string) => store.get(key) ?? null),
      set: vi.fn(async (key: string, value: string) => {
        store.set(key, value);
        return 'OK' as const;
      }),
    };
    const outcome = {
      target: 'windows-amd',
      ok: false,
      firstError: "wordcount.cpp:1: error: 'sys/mman.h' not found",
      log: 'compiler output',
      compiler: 'x86_64-w64-mingw32-g++-posix',
    };
    const key = await patchCheckKey('pj', challenge, data.patchText);
    // The key names what decides the outcome: the challenge's version, the compiler, the patch.
    const sha = createHash('sha256').update(data.patchText).digest('hex');
    expect(key).toMatch(
      new RegExp(
        `^pj:portability-patch:wordcount@${challenge.manifest.version}:[0-9a-f]{16}:${sha}$`,
      ),
    );
    store.set(key, JSON.stringify(outcome));
    const notes: string[] = [];
    // workRoot does not exist: a compile would fail and skip the shortcut with a note.
    const settled = await portabilityPreCheck('cross-compiles', options(redis))(
      data,
      challenge,
      (line) => notes.push(line),
      undefined,
    );
    expect(settled).toBeNull();
    expect(notes).toEqual([
      `portability pre-check for windows-amd: does not build (${outcome.firstError}) (the same patch’s earlier check, not compiled again)`,
    ]);
    const published = portabilityCheckSchema.parse(
      JSON.parse(store.get(portabilityKey('pj', data.submissionId, data.round, 'windows-amd'))!),
    );
    expect(published).toMatchObject({ ...outcome, runnerId: 'runner-w' });
  });

  it('does not reuse an outcome kept for another version of the cross-compiler', async () => {
    const challenge = await loadChallenge('wordcount');
    const data = judgingJobSchema.parse({
      ...jobData,
      challenge: { slug: 'wordcount', version: challenge.manifest.version },
    });
    const ours = await patchCheckKey('pj', challenge, data.patchText);
    expect(ours).toBe(await patchCheckKey('pj', challenge, data.patchText, await mingwVersion()));
    // The same challenge and patch checked by an older compiler: kept under another key.
    const stale = await patchCheckKey(
      'pj',
      challenge,
      data.patchText,
      'x86_64-w64-mingw32-g++-posix (GCC) 10-posix',
    );
    expect(stale).not.toBe(ours);
    const outcome = {
      target: 'windows-amd',
      ok: false,
      firstError: 'old',
      log: '',
      compiler: 'old',
    };
    const store = new Map([[stale, JSON.stringify(outcome)]]);
    const redis = {
      get: vi.fn(async (key: string) => store.get(key) ?? null),
      set: vi.fn(async (key: string, value: string) => {
        store.set(key, value);
        return 'OK' as const;
      }),
    };
    const notes: string[] = [];
    // workRoot does not exist: the compile this needs fails, and the shortcut is skipped.
    await portabilityPreCheck('cross-compiles', options(redis))(
      data,
      challenge,
      (line) => notes.push(line),
      undefined,
    );
    expect(redis.get).toHaveBeenCalledWith(ours);
    expect(notes.join('\n')).not.toMatch(/not compiled again/);
    expect(store.has(portabilityKey('pj', data.submissionId, data.round, 'windows-amd'))).toBe(
      false,
    );
  });

  it('is never fatal: a Redis failure only skips the shortcut', async () => {
    const challenge = await loadChallenge('wordcount');
    const data = judgingJobSchema.parse({
      ...jobData,
      target: 'windows-amd',
      challenge: { slug: 'wordcount', version: challenge.manifest.version },
    });
    const notes: string[] = [];
    const get = vi.fn(async () => {
      throw new Error('Connection is closed.');
    });
    expect(
      await portabilityPreCheck('settles', options({ get }))(
        data,
        challenge,
        (line) => notes.push(line),
        undefined,
      ),
    ).toBeNull();
    expect(notes).toEqual(['portability pre-check skipped: Connection is closed.']);
  });
});

describe('the portability pre-check', () => {
  it('settles a failed cross-compile as a valid BUILD_ERROR result', async () => {
    const check = portabilityCheckSchema.parse({
      submissionId: 's1',
      round: 0,
      target: 'windows-amd',
      ok: false,
      firstError: 'wordcount.cpp:19:10: fatal error: sys/mman.h: No such file or directory',
      log: '$ cmake …\nfatal error\n',
      compiler: 'x86_64-w64-mingw32-g++-posix',
      runnerId: 'linux-1',
      checkedAt: new Date().toISOString(),
    });
    const job = {
      judgingId: 'j1',
      round: 0,
      submissionId: 's1',
      challenge: { slug: 'wordcount', version: 1 },
      target: 'windows-amd' as const,
      patchText: '',
    };
    const result = judgingResultSchema.parse(
      settledByPortabilityCheck(job, check, host, new Date()),
    );
    expect(result.verdict).toBe('BUILD_ERROR');
    expect(result.message).toMatch(/sys\/mman\.h/);
    expect(result.stages.build?.solution.log).toMatch(/portability pre-check on a Linux host/);
  });
});

describe('the host platform a runner starts on', () => {
  it('gives a windows-amd runner the settling role, and no emulation with --no-emulate', async () => {
    const platform = await hostPlatform({
      targetId: 'windows-amd',
      target: windows,
      sandbox,
      dataDir: '/nonexistent',
      emulate: false,
    });
    expect(platform.emulation).toBeNull();
    expect(platform.portability).toBe('settles');
    expect(platform.matches).toBe(false);
  });

  it('gives a Linux runner the cross-compiling role when MinGW-w64 is here', async () => {
    const linux = { os: 'linux', cpuVendor: 'GenuineIntel', toolchain: windows.toolchain };
    const platform = await hostPlatform({
      targetId: 'linux-intel',
      target: linux as Target,
      sandbox,
      dataDir: '/nonexistent',
    });
    expect(platform.emulation).toBeNull();
    expect(platform.portability).toBe((await canCrossCompile()) ? 'cross-compiles' : null);
  });
});
