// Judge-input resolution, the one rule the runner and `perfjudge judge` share (so the local judge
// judges as the platform does): the benchmark input from a definition (size, seed, development)
// with the seed falling back to this machine's seed variable, the public input, and the run policy
// the definition and the caller's pair budget give.
import type { JobBenchmark, RunPolicy, TimedInput } from '../../../contracts';
import { timedInput } from './benchmark-definition';
import type { InputSpec } from './inputs';
import type { Challenge } from './load-manifest';

export interface JudgeInputs {
  benchmark: InputSpec;
  /** False when no seed was known: a local stand-in, and the result says the input was not secret. */
  benchmarkSeedIsSecret: boolean;
  publicInput: InputSpec;
  runPolicy: Partial<RunPolicy>;
  /** What the result records it was timed on (the scorer compares it with the contest's). */
  timed: TimedInput;
}

export function resolveJudgeInputs(options: {
  challenge: Challenge;
  /** The benchmark definition: the job's (the platform resolved it) or the CLI's options. */
  definition: JobBenchmark;
  /** A seed variable's value on this machine (PERFJUDGE_WORDCOUNT_SEED); undefined when unset. */
  secret: (name: string) => string | undefined;
  /** A smaller public input (development); default the manifest's. */
  publicBytes?: number;
  /** At most this many timed pairs (development mode), besides the definition's own budget. */
  maxPairs?: number;
  /** The organizer's interval precision. */
  precision?: number;
}): JudgeInputs {
  const { manifest } = options.challenge;
  const { definition } = options;
  const seed = definition.seed ?? options.secret(manifest.inputs.benchmark.seedEnv);
  // The definition's pair budget (the contest's run policy), and the caller's, whichever is smaller.
  const budgets = [definition.maxPairs, options.maxPairs].filter((n) => n !== undefined);
  const maxPairs = budgets.length ? Math.min(...budgets) : undefined;
  const runPolicy: Partial<RunPolicy> = {
    // The judge lowers the manifest's least pairs to a smaller budget (judgingPolicy).
    ...(maxPairs ? { maxPairs } : {}),
    // Absent, not undefined: the judge spreads this over the manifest's policy.
    ...(options.precision !== undefined ? { precision: options.precision } : {}),
  };
  return {
    benchmark: {
      seed: seed ?? `local-${manifest.slug}-benchmark`,
      sizeBytes: definition.sizeBytes,
      rareSeparators: manifest.inputs.rareSeparators,
    },
    benchmarkSeedIsSecret: seed !== undefined,
    publicInput: {
      seed: manifest.inputs.public.seed,
      sizeBytes: options.publicBytes ?? manifest.inputs.public.size,
      rareSeparators: false,
    },
    runPolicy,
    timed: timedInput(definition, seed ?? null),
  };
}
