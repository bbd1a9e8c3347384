// The organizer's settings travel in the judging job and reach the judge: precision as the run
// policy's, benchmark size and seed as the hidden input's; a job without settings is judged as before.
// The job's benchmark definition is what a runner times on: never a size of the runner's own.
// A contest that turns cachegrind off says so in its jobs, and the judge gives the reason.
import { describe, expect, it } from 'vitest';
import { judgingJobSchema, type JudgingJob } from '../../contracts';
import { loadChallenge } from '../../lib/core/challenge/load-manifest';
import { seedFingerprint } from '../../lib/core/challenge/benchmark-definition';
import { toJudgingJobSettings } from '../../lib/server/db/judgings/judging-job-settings';
import { cachegrindOff, judgeInputsForJob } from '../../runner/service/judging-processor';

const baseJob = {
  judgingId: 'j1',
  round: 0,
  submissionId: 's1',
  challenge: { slug: 'wordcount', version: 1 },
  target: 'linux-intel',
  patchText: '',
} as const;

describe('judging job settings', () => {
  it('carry precision, size and seed into the judge options', async () => {
    const challenge = await loadChallenge('wordcount');
    const job: JudgingJob = judgingJobSchema.parse({
      ...baseJob,
      challenge: { slug: 'wordcount', version: challenge.manifest.version },
      settings: { precision: 0.02, benchmarkBytes: 4096, benchmarkSeed: 'organizer-seed-1' },
    });
    const inputs = judgeInputsForJob(job, challenge, {
      secret: () => 'env-seed-xyz',
      maxPairs: 5,
    });
    expect(inputs.benchmark.seed).toBe('organizer-seed-1');
    expect(inputs.benchmark.sizeBytes).toBe(4096);
    expect(inputs.benchmarkSeedIsSecret).toBe(true);
    expect(inputs.runPolicy?.precision).toBe(0.02);
    // The runner's pair budget still applies.
    expect(inputs.runPolicy?.maxPairs).toBe(5);
  });

  it('leave a job without settings judged by the manifest and the runner', async () => {
    const challenge = await loadChallenge('wordcount');
    const { manifest } = challenge;
    const job = judgingJobSchema.parse({
      ...baseJob,
      challenge: { slug: 'wordcount', version: manifest.version },
    });
    const withSecret = judgeInputsForJob(job, challenge, { secret: () => 'env-seed-xyz' });
    expect(withSecret.benchmark.seed).toBe('env-seed-xyz');
    expect(withSecret.benchmark.sizeBytes).toBe(manifest.inputs.benchmark.size);
    expect(withSecret.benchmarkSeedIsSecret).toBe(true);
    expect(withSecret.runPolicy?.precision).toBeUndefined();

    const local = judgeInputsForJob(job, challenge, { secret: () => undefined });
    expect(local.benchmarkSeedIsSecret).toBe(false);
    expect(local.benchmark.sizeBytes).toBe(manifest.inputs.benchmark.size);
    expect(local.timed.seedFingerprint).toBeNull();
  });

  it("time on the job's benchmark definition, seed included, over the runner's variable", async () => {
    const challenge = await loadChallenge('wordcount');
    const job = judgingJobSchema.parse({
      ...baseJob,
      challenge: { slug: 'wordcount', version: challenge.manifest.version },
      benchmark: { sizeBytes: 2 << 20, seed: 'the-platform-seed', development: true },
    });
    const inputs = judgeInputsForJob(job, challenge, { secret: () => 'a-runner-seed' });
    expect(inputs.benchmark.sizeBytes).toBe(2 << 20);
    expect(inputs.benchmark.seed).toBe('the-platform-seed');
    expect(inputs.timed).toEqual({
      sizeBytes: 2 << 20,
      seedFingerprint: seedFingerprint('the-platform-seed'),
      development: true,
    });
    // Without a seed in the job, the runner's variable (the manifest names it) decides.
    const { seed: _none, ...withoutSeed } = job.benchmark!;
    const fallback = judgeInputsForJob({ ...job, benchmark: withoutSeed }, challenge, {
      secret: () => 'a-runner-seed',
    });
    expect(fallback.benchmark.seed).toBe('a-runner-seed');
    expect(fallback.timed.seedFingerprint).toBe(seedFingerprint('a-runner-seed'));
  });

  it('refuse settings out of range or unknown', () => {
    for (const settings of [
      { precision: 0 },
      { precision: 0.9 },
      { benchmarkBytes: 10 },
      { benchmarkBytes: 1.5e3 + 0.5 },
      { benchmarkSeed: 'short' },
      { deadline: '2026-01-01' },
    ])
      expect(
        judgingJobSchema.safeParse({ ...baseJob, settings }).success,
        JSON.stringify(settings),
      ).toBe(false);
  });

  it("carry the contest's cachegrind switch only when it is off, and the judge says why", () => {
    const row = { precision: null, benchmarkBytes: null, benchmarkSeed: null };
    expect(toJudgingJobSettings({ ...row, cachegrind: true })).toBeUndefined();
    const settings = toJudgingJobSettings({ ...row, cachegrind: false });
    expect(settings).toEqual({ cachegrind: false });
    const off = judgingJobSchema.parse({ ...baseJob, settings });
    expect(cachegrindOff(off, {})).toBe(
      "cachegrind was not run: this contest's settings leave it out of every judging",
    );
    // Without the setting, the manifest decides; a runner's development knob has its own words.
    const plain = judgingJobSchema.parse(baseJob);
    expect(cachegrindOff(plain, {})).toBeUndefined();
    expect(cachegrindOff(plain, { deterministic: false })).toMatch(/--no-deterministic/);
  });
});
