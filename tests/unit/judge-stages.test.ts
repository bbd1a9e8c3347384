// Steps of judge() alone, on a hand-made JudgingContext (no sandbox, compiler or scratch folder):
// the pre-flight refusals, how a failure becomes the verdict's facts, and the closing report.
import { describe, expect, it } from 'vitest';
import { UNKNOWN_HOST, type ProgressEvent } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { JudgeError, JudgingCancelledError } from '../../runner/judge/errors';
import {
  finishReport,
  preflight,
  profileStage,
  recordFailure,
  type BuiltBinaries,
} from '../../runner/judge/judge-stages';
import {
  createResultSkeleton,
  judgingPolicy,
  type JudgeOptions,
  type JudgingContext,
} from '../../runner/judge/judging-context';
import { runProfile } from '../../runner/judge/profile-stage';
import type { Sandbox } from '../../runner/sandbox';
import type { TargetPlatform } from '../../runner/platform';
import { soloTurns } from '../../runner/judge/host-turns';
import { createMeasureSessions } from '../../runner/judge/measure-session';

const WORK = '/tmp/perfjudge-judging-test';

async function context(overrides: Partial<JudgingContext> = {}) {
  const challenge = await loadChallenge('wordcount');
  const events: ProgressEvent[] = [];
  const lines: string[] = [];
  let disposed = false;
  const sandbox = { kind: 'bubblewrap', check: () => Promise.resolve() } as unknown as Sandbox;
  const options: JudgeOptions = {
    challenge,
    target: 'linux-intel',
    patchText: '',
    sandbox,
    dataDir: '/tmp/data',
    benchmark: { seed: 's', sizeBytes: 1, rareSeparators: false },
    benchmarkSeedIsSecret: true,
    publicInput: null,
    onProgress: (e) => events.push(e),
    onLog: (l) => lines.push(l),
  };
  const warnings: string[] = [];
  const started = new Date();
  const ctx: JudgingContext = {
    options,
    challenge,
    target: 'linux-intel',
    targetSpec: challenge.manifest.targets['linux-intel'],
    policy: { ...challenge.manifest.runPolicy },
    cpu: 0,
    platform: null,
    platformError: null,
    requestedDevMode: true,
    hostDifferences: [],
    host: UNKNOWN_HOST,
    started,
    result: createResultSkeleton(options, UNKNOWN_HOST, started, warnings),
    facts: { intake: { ok: false } },
    warnings,
    scratch: {
      dir: WORK,
      capBytes: null,
      dispose: () => {
        disposed = true;
        return Promise.resolve();
      },
    },
    dirs: { workDir: WORK, boxDir: `${WORK}/box`, srcDir: `${WORK}/box/src` },
    shownPaths: [{ host: WORK, shown: '/judge/work' }],
    hugePageNote: null,
    clock: { stage: 'intake', since: performance.now() },
    sharing: { turns: soloTurns, sessions: createMeasureSessions(soloTurns) },
    ...overrides,
  };
  return { ctx, events, lines, disposed: () => disposed };
}

describe('preflight', () => {
  it('refuses a target the challenge does not define, as the judge’s fault', async () => {
    const { ctx } = await context({ targetSpec: undefined });
    await expect(preflight(ctx)).rejects.toThrow(
      new JudgeError('challenge wordcount has no target linux-intel'),
    );
  });

  it('refuses a missing platform with the reason it could not be made', async () => {
    const { ctx } = await context({ platformError: 'no MinGW here' });
    await expect(preflight(ctx)).rejects.toThrow('no MinGW here');
  });
});

describe('recordFailure', () => {
  it('tells a cancelled judging from a judge error, and logs only the unexpected', async () => {
    const cancelled = await context();
    recordFailure(cancelled.ctx, new JudgingCancelledError());
    expect(cancelled.ctx.facts.judgeError).toBe('the judging was cancelled');

    const judgeError = await context();
    recordFailure(judgeError.ctx, new JudgeError('the sandbox is gone'));
    expect(judgeError.ctx.facts.judgeError).toBe('the sandbox is gone');
    expect(judgeError.lines).toEqual([]);

    const unexpected = await context();
    recordFailure(unexpected.ctx, new TypeError('x is undefined'));
    expect(unexpected.ctx.facts.judgeError).toBe('x is undefined');
    expect(unexpected.lines[0]).toMatch(/^unexpected error: TypeError: x is undefined/);
  });
});

describe('profileStage', () => {
  const built = { identical: false } as BuiltBinaries;

  it('notes, rather than runs, the Linux profile for a target that is not Linux', async () => {
    const { ctx } = await context();
    const platform = {
      capabilities: {
        timing: 'emulated',
        memoryProfile: false,
        topDown: false,
        cachegrind: false,
        sampledProfile: false,
      },
    } as TargetPlatform;
    await profileStage(ctx, platform, built, {
      stage: null!,
      solutionOutcomes: ['ok'],
      warnings: [],
    });
    expect(ctx.result.stages.profile?.notes[0]).toMatch(
      /sampled profile \(perf record\) are Linux tools .*: unavailable on this target \(linux-intel\)$/,
    );
  });

  it('runs only the profile parts the platform has, a note for each other', async () => {
    const { ctx } = await context();
    // Nothing here can run: a part that ran anyway would fail and leave a "failed" note instead.
    const stage = await runProfile({
      parts: { memoryProfile: false, topDown: false, cachegrind: false, sampledProfile: false },
      challenge: ctx.challenge,
      sandbox: ctx.options.sandbox,
      toolchain: ctx.targetSpec!.toolchain,
      baselineBinary: '/nonexistent/baseline',
      solutionBinary: '/nonexistent/solution',
      solutionTree: '/nonexistent/src',
      boxDir: '/nonexistent',
      benchmarkInput: { path: '/nonexistent/input', sha256: '', bytes: 0 },
      dataDir: '/nonexistent',
      workDir: '/nonexistent',
      cpu: 0,
      policy: ctx.policy,
      onProgress: () => undefined,
      log: () => undefined,
    });
    expect(stage).toMatchObject({
      memory: null,
      topdown: null,
      deterministic: null,
      sampled: null,
    });
    expect(stage.notes).toEqual([
      "memory profile: not run, the target's platform does not have it",
      "sampled profile (perf record): not run, the target's platform does not have it",
      "Top-Down level 1: not run, the target's platform does not have it",
      "deterministic mode (cachegrind): not run, the target's platform does not have it",
    ]);
  });

  it('profiles nothing for a solution that failed a run or is the baseline', async () => {
    const { ctx } = await context();
    const platform = {
      capabilities: {
        timing: 'emulated',
        memoryProfile: false,
        topDown: false,
        cachegrind: false,
        sampledProfile: false,
      },
    } as TargetPlatform;
    await profileStage(ctx, platform, built, {
      stage: null!,
      solutionOutcomes: ['ok', 'runtime-error'],
      warnings: [],
    });
    await profileStage(ctx, platform, { identical: true } as BuiltBinaries, {
      stage: null!,
      solutionOutcomes: ['ok'],
      warnings: [],
    });
    expect(ctx.result.stages.profile).toBeNull();
  });
});

describe('finishReport', () => {
  it('decides the verdict, scrubs host paths, times the stages and removes the scratch folder', async () => {
    const { ctx, events, disposed } = await context();
    ctx.facts = { intake: { ok: false, message: `cannot apply ${WORK}/box/src/wc.cpp` } };
    ctx.warnings.push(`slow disk under ${WORK}`);
    await finishReport(ctx);
    expect(ctx.result.verdict).toBe('REJECTED');
    expect(ctx.result.message).toBe('cannot apply /judge/work/box/src/wc.cpp');
    expect(ctx.result.warnings).toEqual(['slow disk under /judge/work']);
    expect(Object.keys(ctx.result.stageDurationsMs)).toEqual(['intake']);
    expect(ctx.result.finishedAt).not.toBeNull();
    expect(events.at(-1)).toMatchObject({ stage: 'report', fraction: 1 });
    expect(events.at(-1)!.message).toBe('REJECTED: cannot apply /judge/work/box/src/wc.cpp');
    expect(disposed()).toBe(true);
  });

  it('adds the huge-page hint to a runtime error only', async () => {
    const crashed = await context({ hugePageNote: 'no huge page pool here' });
    crashed.ctx.facts = {
      intake: { ok: true },
      build: { ok: true },
      tests: [],
      measuredRuns: ['runtime-error'],
    };
    await finishReport(crashed.ctx);
    expect(crashed.ctx.result.message).toBe(
      'benchmark run 1: runtime-error (no huge page pool here)',
    );

    const rejected = await context({ hugePageNote: 'no huge page pool here' });
    await finishReport(rejected.ctx);
    expect(rejected.ctx.result.message).toBe('the patch was rejected');
  });
});

describe('the judging policy', () => {
  it("lowers the manifest's least pairs to a smaller budget, unless the settings name their own", async () => {
    const { runPolicy } = (await loadChallenge('wordcount')).manifest;
    expect(runPolicy.minPairs).toBeGreaterThan(5);
    expect(judgingPolicy(runPolicy, { maxPairs: 5 })).toMatchObject({ minPairs: 5, maxPairs: 5 });
    expect(judgingPolicy(runPolicy, { maxPairs: 500 })).toMatchObject({
      minPairs: runPolicy.minPairs,
      maxPairs: 500,
    });
    expect(judgingPolicy(runPolicy, { minPairs: 3, maxPairs: 4 })).toMatchObject({
      minPairs: 3,
      maxPairs: 4,
    });
    expect(judgingPolicy(runPolicy)).toEqual(runPolicy);
  });
});
