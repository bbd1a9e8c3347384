// Memory over time and the sampled call stacks of each side, from ONE untimed run per side: the
// memory sampler runs the program inside the sandbox while perf record samples its CPU from outside.
// Both are informational and untimed, and neither disturbs the other's figures: perf keeps only the
// program's own samples (the sampler is another process), and perf's buffers are not the
// program's memory. One run instead of two halves the part of the profile stage that grows with the
// input. The baseline's parts come from the cache (baseline-profile-cache.ts) after the first judging.
import { z } from 'zod';
import {
  memoryProfileSchema,
  sampledProfileSchema,
  type ProfileStage,
  type SampledProfile,
} from '../../contracts';
import { profileMemory, type MemoryProfileRun } from '../measure/memory-profile';
import {
  profiledProgramPath,
  recordProfile,
  samplingHz,
  TARGET_SAMPLES,
} from '../measure/perf-record';
import { findPerf } from '../measure/perf-stat';
import { classifyRun } from '../sandbox/run-program';
import type { SandboxResult } from '../sandbox/sandbox';
import {
  readBaselineProfile,
  storeBaselineProfile,
  type BaselineProfileKey,
} from './baseline-profile-cache';
import type { ProfileStageOptions } from './profile-stage';

const MEMORY_CACHE_SCHEMA = z.object({ profile: memoryProfileSchema, notes: z.array(z.string()) });
type MemoryPart = z.infer<typeof MEMORY_CACHE_SCHEMA>;

/** What to take of a side: memory over time, call stacks (with perf, at `hz` samples a second). */
interface Want {
  memory: boolean;
  perf: string | null;
  hz: number;
}

/** One side's parts: each a value, or why it is missing. */
interface SideParts {
  memory: MemoryPart | { failed: string } | null;
  sampled: SampledProfile | { failed: string } | null;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

const failed = (part: unknown): part is { failed: string } =>
  typeof part === 'object' && part !== null && 'failed' in part;

/**
 * One run of `binary`: under the memory sampler when memory is wanted, under perf record when
 * `perf` is given. When perf cannot record at all (it never started the run), memory gets a run
 * of its own.
 */
async function profileSide(
  options: ProfileStageOptions,
  binary: string,
  want: Want,
): Promise<SideParts> {
  const { limits } = options.challenge.manifest;
  const programInside = profiledProgramPath();
  let memoryRun: MemoryProfileRun | undefined;
  // Under the sampler even when only the stacks are wanted (no Linux host lacks the sampler).
  const runSide = async (): Promise<SandboxResult> => {
    memoryRun = await profileMemory({
      sandbox: options.sandbox,
      binary,
      programInside,
      input: options.benchmarkInput.path,
      workDir: options.workDir,
      limits,
      cpu: options.cpu,
      signal: options.signal,
    });
    return memoryRun.run;
  };
  const parts: SideParts = { memory: null, sampled: null };
  if (want.perf) {
    try {
      const { result, profile, timings } = await recordProfile({
        perf: want.perf,
        hz: want.hz,
        cpu: options.cpu,
        dir: options.workDir,
        binary,
        programInside,
        run: runSide,
      });
      // What grows with the input (the cost bench reads this line: bench/judge.ts profile).
      options.log(
        `perf record: program run ${(timings.runMs / 1000).toFixed(2)} s, perf script ${(timings.scriptMs / 1000).toFixed(2)} s (${profile.samples} samples)`,
      );
      const run = classifyRun(result);
      parts.sampled =
        run.outcome === 'passed'
          ? profile
          : { failed: `the program under perf record: ${run.message}` };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // A run that failed says why before perf does: a program stopped at the time limit while it
      // slept has no samples, and "no samples" would hide the limit.
      const run = memoryRun && classifyRun(memoryRun.run);
      parts.sampled = {
        failed:
          run && run.outcome !== 'passed'
            ? `the program under perf record: ${run.message}`
            : reason(error),
      };
    }
  }
  if (want.memory) {
    try {
      if (!memoryRun) await runSide();
      parts.memory = { profile: memoryRun!.profile, notes: memoryRun!.notes };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      parts.memory = { failed: reason(error) };
    }
  }
  return parts;
}

/** The baseline's parts: from the cache where it has them, else one run (its good parts kept). */
async function baselineParts(options: ProfileStageOptions, want: Want): Promise<SideParts> {
  const { limits } = options.challenge.manifest;
  const key = (kind: 'memory' | 'sampled', settings: object): BaselineProfileKey => ({
    kind,
    buildKey: options.baselineBuildKey ?? '',
    inputSha256: options.benchmarkInput.sha256,
    settings: { limits, sandbox: options.sandbox.kind, ...settings },
  });
  const memoryKey = key('memory', {});
  // Not keyed by the rate: the first judging's sets it for the host, and the solutions follow it.
  const sampledKey = key('sampled', { samples: TARGET_SAMPLES });
  const cached: SideParts = {
    memory: want.memory
      ? await readBaselineProfile(options.dataDir, memoryKey, MEMORY_CACHE_SCHEMA)
      : null,
    sampled: want.perf
      ? await readBaselineProfile(options.dataDir, sampledKey, sampledProfileSchema)
      : null,
  };
  if ((!want.memory || cached.memory) && (!want.perf || cached.sampled)) {
    if (cached.memory) options.log('baseline memory profile: reused from an earlier judging');
    if (cached.sampled) options.log('baseline sampled profile: reused from an earlier judging');
    return cached;
  }
  const ran = await profileSide(options, options.baselineBinary, want);
  if (ran.memory && !failed(ran.memory))
    await storeBaselineProfile(options.dataDir, memoryKey, ran.memory);
  if (ran.sampled && !failed(ran.sampled))
    await storeBaselineProfile(options.dataDir, sampledKey, ran.sampled);
  return ran;
}

/**
 * Fills the stage's memory series and sampled profiles (both sides, or null with a note), with
 * one run per side that is not cached.
 */
export async function memoryAndStacks(
  options: ProfileStageOptions,
  stage: ProfileStage,
): Promise<void> {
  const unsupported = (part: string) =>
    stage.notes.push(`${part}: not run, the target's platform does not have it`);
  if (!options.parts.memoryProfile) unsupported('memory profile');
  if (!options.parts.sampledProfile) unsupported('sampled profile (perf record)');
  let perf: string | null = null;
  if (options.parts.sampledProfile) {
    perf = await findPerf();
    if (!perf) stage.notes.push('sampled profile unsupported: perf is not installed on this host');
  }
  const want = { memory: options.parts.memoryProfile, perf, hz: samplingHz(options.timedMedianMs) };
  if (!want.memory && !want.perf) return;

  const baseline = await baselineParts(options, want);
  // Both sides at one rate: the baseline's, cached with it (a median moving across one of
  // samplingHz's steps would otherwise profile the baseline again).
  const hz = baseline.sampled && !failed(baseline.sampled) ? baseline.sampled.frequencyHz : want.hz;
  const solution = await profileSide(options, options.solutionBinary, { ...want, hz });

  const memory = pair<MemoryPart>(baseline.memory, solution.memory);
  if (typeof memory === 'string') stage.notes.push(`memory profile failed ${memory}`);
  else if (memory) {
    stage.memory = { baseline: memory.baseline.profile, solution: memory.solution.profile };
    stage.notes.push(...new Set([...memory.baseline.notes, ...memory.solution.notes]));
  }
  const sampled = pair<SampledProfile>(baseline.sampled, solution.sampled);
  if (typeof sampled === 'string') stage.notes.push(`sampled profile failed ${sampled}`);
  else if (sampled) {
    stage.sampled = sampled;
    options.log(
      `perf record (${sampled.solution.event}): ${sampled.baseline.samples} vs ${sampled.solution.samples} samples`,
    );
  }
}

/** Both sides' values, a side's failure, or null when the part was not wanted. */
function pair<T>(
  baseline: T | { failed: string } | null,
  solution: T | { failed: string } | null,
): { baseline: T; solution: T } | string | null {
  if (baseline === null || solution === null) return null;
  if (failed(baseline)) return `(baseline) ${baseline.failed}`;
  if (failed(solution)) return `(solution) ${solution.failed}`;
  return { baseline, solution };
}
