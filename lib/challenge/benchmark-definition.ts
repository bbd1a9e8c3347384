// One benchmark definition per leaderboard: the platform resolves a contest's benchmark input (size
// and seed) once, from the organizer's settings or the manifest, and puts it in every judging job;
// runners time on exactly that; the scorer ranks only results timed on the contest's current one.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { formatByteSize, type JobBenchmark, type JudgingJobSettings } from '../../contracts';
import type { TimedInput } from '../../contracts/judging';
import { challengeSecret, env } from '../config/env';

/** What the platform side knows beyond the database: a development size and the seed variables. */
export interface BenchmarkDefaults {
  /** PERFJUDGE_BENCHMARK_SIZE: the size when the organizer set none (npm start's fast default). */
  sizeBytes?: number;
  /** A seed variable's value where the web app and scorer run (PERFJUDGE_WORDCOUNT_SEED). */
  secret: (name: string) => string | undefined;
}

export function platformBenchmarkDefaults(): BenchmarkDefaults {
  return { sizeBytes: env().PERFJUDGE_BENCHMARK_SIZE, secret: challengeSecret };
}

/** The part of a stored manifest (ChallengeVersion.manifest) the definition needs. */
const storedBenchmarkSchema = z.object({
  inputs: z.object({
    benchmark: z.object({ size: z.number().int().positive(), seedEnv: z.string() }),
  }),
});
export type ManifestBenchmark = z.infer<typeof storedBenchmarkSchema>['inputs']['benchmark'];

export function manifestBenchmark(manifestJson: unknown): ManifestBenchmark {
  return storedBenchmarkSchema.parse(manifestJson).inputs.benchmark;
}

/**
 * The contest's benchmark input now: the organizer's size and seed win, then the platform's
 * development size (labelled when smaller than the manifest's), then the manifest's size; the seed
 * from the organizer, else the platform's seed variable.
 */
export function resolveBenchmark(
  manifest: ManifestBenchmark,
  settings: JudgingJobSettings | undefined,
  defaults: BenchmarkDefaults = platformBenchmarkDefaults(),
): JobBenchmark {
  const organizerSize = settings?.benchmarkBytes;
  const sizeBytes = organizerSize ?? defaults.sizeBytes ?? manifest.size;
  const seed = settings?.benchmarkSeed ?? defaults.secret(manifest.seedEnv);
  return {
    sizeBytes,
    seed,
    development: organizerSize === undefined && sizeBytes < manifest.size,
  };
}

/**
 * A short, one-way tag of a seed, so a result can say which input it was timed on without
 * carrying the secret. (A seed must be long and random: a guessable one could be found from it,
 * as from the leaderboard's timings.)
 */
export function seedFingerprint(seed: string): string {
  return createHash('sha256')
    .update(`perfjudge benchmark seed\0${seed}`)
    .digest('hex')
    .slice(0, 16);
}

/** What a result records: the definition it was timed on, the seed as a fingerprint. */
export function timedInput(
  definition: Pick<JobBenchmark, 'sizeBytes' | 'development'>,
  seed: string | null,
): TimedInput {
  return {
    sizeBytes: definition.sizeBytes,
    seedFingerprint: seed === null ? null : seedFingerprint(seed),
    development: definition.development,
  };
}

export function describeTimedInput(input: TimedInput): string {
  const seed = input.seedFingerprint ? `seed ${input.seedFingerprint.slice(0, 8)}…` : 'local seed';
  return `${formatByteSize(input.sizeBytes)}, ${seed}`;
}

/**
 * Why a result cannot be ranked against the contest's current definition, or null when it can.
 * A seed is compared only when the platform knows the contest's (else the runners' decides).
 */
export function benchmarkMismatch(
  timed: TimedInput | undefined,
  current: JobBenchmark,
): string | null {
  if (!timed) return null; // a result of an older runner: nothing to compare
  const expected = timedInput(current, current.seed ?? null);
  const sizeDiffers = timed.sizeBytes !== expected.sizeBytes;
  const seedDiffers =
    current.seed !== undefined && timed.seedFingerprint !== expected.seedFingerprint;
  if (!sizeDiffers && !seedDiffers) return null;
  return (
    `timed on another benchmark input (${describeTimedInput(timed)}) than the contest's ` +
    `current one (${describeTimedInput(expected)})`
  );
}
