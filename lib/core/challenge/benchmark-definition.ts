// One benchmark definition per leaderboard: the contest's benchmark input (size, seed, generator
// version) and run-policy override are contest state in PostgreSQL, written once (the seed, npm start,
// the organizer console) and read from there by every process that makes jobs; it travels in every
// judging job, runners time on exactly that, the scorer ranks only results timed on it. A process's
// environment never decides it: one that disagrees says so (definitionDisagreements) and uses the
// database's.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { formatByteSize, type JobBenchmark } from '../../../contracts';
import type { TimedInput } from '../../../contracts/judging';

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

/** The definition's columns of a Challenge row (prisma/schema.prisma). */
export interface StoredBenchmark {
  benchmarkBytes: number | null;
  benchmarkSeed: string | null;
  benchmarkDevelopment: boolean;
  benchmarkMaxPairs: number | null;
  benchmarkGenerator: number | null;
  benchmarkRevision: number;
}

/** What a writer (the seed, npm start) or a process's environment asks the definition to be. */
export interface BenchmarkProposal {
  /** Unset: the manifest's. */
  sizeBytes?: number;
  seed?: string;
  /** At most this many timed pairs (npm start's PERFJUDGE_RUNS). */
  maxPairs?: number;
  generatorVersion?: number;
}

/** The contest's definition as every job carries it: the stored one, the manifest's size when unset. */
export function resolveBenchmark(
  manifest: ManifestBenchmark,
  stored: StoredBenchmark,
): JobBenchmark {
  return {
    sizeBytes: stored.benchmarkBytes ?? manifest.size,
    ...(stored.benchmarkSeed !== null ? { seed: stored.benchmarkSeed } : {}),
    development: stored.benchmarkDevelopment,
    ...(stored.benchmarkMaxPairs !== null ? { maxPairs: stored.benchmarkMaxPairs } : {}),
    ...(stored.benchmarkGenerator !== null ? { generatorVersion: stored.benchmarkGenerator } : {}),
    revision: stored.benchmarkRevision,
  };
}

/**
 * The columns a first write stores: what is already set stays (an organizer's earlier size or
 * seed), the rest from the proposal; smaller than the manifest's or fewer pairs is development.
 */
export function firstDefinition(
  manifest: ManifestBenchmark,
  stored: StoredBenchmark,
  proposal: BenchmarkProposal,
): StoredBenchmark {
  const sizeBytes = stored.benchmarkBytes ?? proposal.sizeBytes ?? manifest.size;
  const maxPairs = stored.benchmarkMaxPairs ?? proposal.maxPairs ?? null;
  return {
    benchmarkBytes: sizeBytes,
    benchmarkSeed: stored.benchmarkSeed ?? proposal.seed ?? null,
    benchmarkDevelopment: sizeBytes < manifest.size || maxPairs !== null,
    benchmarkMaxPairs: maxPairs,
    benchmarkGenerator: stored.benchmarkGenerator ?? proposal.generatorVersion ?? null,
    benchmarkRevision: 1,
  };
}

/**
 * Where a process's proposal (its environment) differs from the contest's definition, one phrase
 * each, never a seed's value: what the process says at start before it uses the database's.
 */
export function definitionDisagreements(
  current: JobBenchmark,
  proposal: BenchmarkProposal,
): string[] {
  const out: string[] = [];
  if (proposal.sizeBytes !== undefined && proposal.sizeBytes !== current.sizeBytes)
    out.push(
      `input size ${formatByteSize(proposal.sizeBytes)} here, ${formatByteSize(current.sizeBytes)} in the database`,
    );
  if (proposal.seed !== undefined && proposal.seed !== current.seed)
    out.push(
      `seed ${seedFingerprint(proposal.seed).slice(0, 8)}… here, ` +
        (current.seed
          ? `${seedFingerprint(current.seed).slice(0, 8)}… in the database`
          : 'none in the database'),
    );
  if (proposal.maxPairs !== undefined && proposal.maxPairs !== current.maxPairs)
    out.push(
      `at most ${proposal.maxPairs} timed pairs here, ${current.maxPairs ?? "the manifest's run policy"} in the database`,
    );
  if (
    proposal.generatorVersion !== undefined &&
    current.generatorVersion !== undefined &&
    proposal.generatorVersion !== current.generatorVersion
  )
    out.push(
      `input generator v${proposal.generatorVersion} here, v${current.generatorVersion} in the database`,
    );
  return out;
}

/** The definition in one line, for logs, the leaderboard and the console (the seed as a tag). */
export function describeDefinition(definition: JobBenchmark): string {
  const parts = [
    formatByteSize(definition.sizeBytes),
    definition.seed ? `seed ${seedFingerprint(definition.seed).slice(0, 8)}…` : "the runners' seed",
    ...(definition.generatorVersion !== undefined
      ? [`generator v${definition.generatorVersion}`]
      : []),
    ...(definition.maxPairs !== undefined ? [`at most ${definition.maxPairs} pairs`] : []),
  ];
  const revision = definition.revision ? `revision ${definition.revision}: ` : '';
  return `${revision}${parts.join(', ')}${definition.development ? ' (development)' : ''}`;
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
