// The profile stage's share of a judging at the official input size, computed from one judging's
// measured parts at a smaller size (bench/judge.ts profile): which parts grow with the input and
// which do not, and the manifest's real pair budget. Printed as a range, never a single guess.
import type { JudgingResult, RunPolicy } from '../contracts';
import { SAMPLING_HZ, samplingHz } from '../runner/measure/perf-record';

export interface ProfileProjection {
  /** Official size / measured size. */
  scale: number;
  pairs: number;
  /** Seconds at the official size: the profile stage and the whole judging, low and high. */
  profile: { low: number; high: number };
  judging: { low: number; high: number };
  /** The profile stage's share, low and high (fractions). */
  share: { low: number; high: number };
}

/**
 * The model, from the judging's stage times and the profile stage's partsMs:
 * - intake, build, tests and report do not grow (the rest of the judging);
 * - the measure stage's runs grow with the input, its per-run overhead does not, and both scale
 *   with the number of pairs (warm-ups counted as runs);
 * - in the profile stage, the memory-and-stacks and Top-Down runs grow: at most all of each part
 *   (high), at least only the program's own run, taken as the solution's timed median (low);
 *   where the judge logged what grows in memory-and-stacks (the runs and perf script), that;
 * - cachegrind does not grow (its input is the manifest's fixed deterministic one); where it ran
 *   beside the runs (partsMs.cachegrindWait present) only what the runs do not cover is waited for.
 */
export function projectProfileShare(
  result: JudgingResult,
  officialBytes: number,
  measuredBytes: number,
  policy: Pick<RunPolicy, 'warmups'>,
  pairs: number,
  measured: {
    /** Whether the baseline was profiled too (its profiles not yet cached on the host). */
    baselineProfiled?: boolean;
    /**
     * Of the memory-and-stacks part, what grows with the input (the judge's log): the program runs
     * under perf record, and perf script's unwinding of their samples, which grows with the
     * samples (at the official size, at the rate samplingHz gives its longer runs). Unknown: a range.
     */
    growingMemory?: { runMs: number; scriptMs: number };
  } = {},
): ProfileProjection {
  const scale = officialBytes / measuredBytes;
  const ms = (x: number | undefined) => x ?? 0;
  const total = result.durationMs;
  const measure = result.stages.measure;
  const measureMs = ms(result.stageDurationsMs.measure);
  const profileMs = ms(result.stageDurationsMs.profile);
  const rest = total - measureMs - profileMs;
  const runs = measure?.runs ?? [];
  const runMs = runs.reduce((sum, r) => sum + r.stats.wallMs, 0);
  const measuredPairs = Math.max(1, measure?.estimate?.pairs ?? runs.length / 2);
  const pairScale = (pairs + policy.warmups) / (measuredPairs + policy.warmups);
  const measureAt = (runMs * scale + (measureMs - runMs)) * pairScale;

  const parts = result.stages.profile?.partsMs ?? {};
  const grown = ms(parts.memoryAndStacks) + ms(parts.topdown);
  const programMs =
    ms(measure?.solution?.medianMs) +
    (measured.baselineProfiled ? ms(measure?.baseline?.medianMs) : 0);
  // The runs per side in the stage (the baseline's come from the cache after the first judging).
  const profile = result.stages.profile;
  const memoryRuns = profile?.memory || profile?.sampled ? 1 : 0;
  const topdownRuns = profile?.topdown ? 1 : 0;
  const beside = parts.cachegrindWait !== undefined;
  const fixed = profileMs - grown - (beside ? ms(parts.cachegrindWait) : ms(parts.cachegrind));
  const profileAt = (runsAt: number) =>
    fixed +
    runsAt +
    (beside
      ? Math.max(
          0,
          ms(parts.cachegrind) - ms(parts.memoryAndStacks) * (runsAt / Math.max(1, grown)),
        )
      : ms(parts.cachegrind));
  const known = measured.growingMemory && grownMemory(result, measured.growingMemory, scale);
  const growing = {
    low: (known ?? memoryRuns * programMs) + topdownRuns * programMs,
    high: (known ?? ms(parts.memoryAndStacks)) + ms(parts.topdown),
  };
  const low = profileAt(grown + growing.low * (scale - 1));
  const high = profileAt(grown + growing.high * (scale - 1));
  const judging = (p: number) => rest + measureAt + p;
  return {
    scale,
    pairs,
    profile: { low: low / 1000, high: high / 1000 },
    judging: { low: judging(low) / 1000, high: judging(high) / 1000 },
    share: { low: low / judging(low), high: high / judging(high) },
  };
}

/**
 * The memory-and-stacks part's growth per unit of scale: its runs, and perf script's share scaled
 * by the samples it will unwind at the official size (the rate drops for long runs) over its own.
 */
function grownMemory(
  result: JudgingResult,
  growing: { runMs: number; scriptMs: number },
  scale: number,
): number {
  const hzNow = result.stages.profile?.sampled?.solution?.frequencyHz ?? SAMPLING_HZ;
  const baselineMs = result.stages.measure?.baseline?.medianMs;
  const hzAt = samplingHz(baselineMs === undefined ? undefined : baselineMs * scale);
  // (scale − 1) × x is added to the part: x is what one more measured size adds on average.
  const scriptAt = growing.scriptMs * ((scale * hzAt) / hzNow);
  return growing.runMs + (scriptAt - growing.scriptMs) / (scale - 1);
}

export function describeProjection(p: ProfileProjection): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const s = (x: number) => `${x.toFixed(0)} s`;
  const range = (a: string, b: string) => (a === b ? a : `${a}–${b}`);
  return (
    `at ${p.scale.toFixed(0)}× the input, ${p.pairs} pairs: profile ${range(s(p.profile.low), s(p.profile.high))} ` +
    `of ${range(s(p.judging.low), s(p.judging.high))}, ${range(pct(p.share.low), pct(p.share.high))}`
  );
}
