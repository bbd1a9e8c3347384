// The judging contract: what a judging job carries and what it returns. The local CLI (`perfjudge
// judge --json`), the queue workers and the web app all speak exactly these types.
import { z } from 'zod';
import { targetIdSchema } from './manifest';

export const VERDICTS = [
  'ACCEPTED',
  'REJECTED',
  'BUILD_ERROR',
  'WRONG_ANSWER',
  'RUNTIME_ERROR',
  'TIME_LIMIT_EXCEEDED',
  'MEMORY_LIMIT_EXCEEDED',
  'OUTPUT_LIMIT_EXCEEDED',
  'JUDGE_ERROR',
] as const;
export const verdictSchema = z.enum(VERDICTS);
export type Verdict = z.infer<typeof verdictSchema>;

/** Verdicts that are the contestant's doing (final, never retried). JUDGE_ERROR is the platform's. */
export function isContestantFault(verdict: Verdict): boolean {
  return verdict !== 'ACCEPTED' && verdict !== 'JUDGE_ERROR';
}

/** Where one target's judging of a submission stands (the database's JudgingStatus). */
export const JUDGING_STATUSES = ['QUEUED', 'WAITING', 'JUDGING', 'DONE', 'CANCELLED'] as const;
export type JudgingStatus = (typeof JUDGING_STATUSES)[number];

/** 'waiting': taken from the queue, waiting for the host-wide judging lock (nothing runs yet). */
export const STAGES = [
  'waiting',
  'intake',
  'build',
  'test',
  'measure',
  'profile',
  'report',
] as const;
export const stageSchema = z.enum(STAGES);
export type Stage = z.infer<typeof stageSchema>;

/** A progress event, streamed while a judging runs (CLI progress line, web app live view). */
export const progressEventSchema = z.object({
  stage: stageSchema,
  /** 0..1 within the stage. */
  fraction: z.number().min(0).max(1),
  message: z.string().max(500),
  /** Structured figures behind the message, for live views that show more than a line. */
  detail: z
    .object({
      /** 'waiting': judgings ahead of this one for the host lock. */
      aheadForHost: z.number().int().nonnegative().optional(),
      /** 'measure': clean timed pairs so far, the fewest before an estimate means anything, the most. */
      pairsDone: z.number().int().nonnegative().optional(),
      pairsMin: z.number().int().nonnegative().optional(),
      pairsMax: z.number().int().nonnegative().optional(),
      /** 'measure': pairs discarded as disturbed so far. */
      pairsDiscarded: z.number().int().nonnegative().optional(),
      /** Estimated milliseconds until this judging is done, from recent judgings. */
      etaMs: z.number().nonnegative().optional(),
    })
    .optional(),
});
export type ProgressEvent = z.infer<typeof progressEventSchema>;

export const sideSchema = z.enum(['baseline', 'solution']);
export type Side = z.infer<typeof sideSchema>;

/** What the OS accounted for one process tree, measured from outside it. */
export const processStatsSchema = z.object({
  wallMs: z.number().nonnegative(),
  userMs: z.number().nonnegative(),
  sysMs: z.number().nonnegative(),
  maxRssBytes: z.number().int().nonnegative(),
  minorFaults: z.number().int().nonnegative(),
  majorFaults: z.number().int().nonnegative(),
  voluntaryContextSwitches: z.number().int().nonnegative(),
  involuntaryContextSwitches: z.number().int().nonnegative(),
  /** (user + sys) / wall: above 1 means more than one CPU's worth of work. */
  cpuUtilization: z.number().nonnegative(),
});
export type ProcessStats = z.infer<typeof processStatsSchema>;

/** A perf counter: a counter the host cannot count is 'unsupported', never 0. */
export const counterSchema = z.object({
  value: z.number().nullable(),
  unit: z.string().default(''),
  status: z.enum(['counted', 'unsupported', 'not-counted']),
  /** Share of the run the counter was actually counting (multiplexing); 100 when always on. */
  runningPercent: z.number().min(0).max(100).nullable().default(null),
});
export type Counter = z.infer<typeof counterSchema>;

/** A file a run reads, and how much of it was in the page cache before the run (then re-warmed). */
const residencySchema = z.object({
  /** 'input', 'program', or a shared library's file name (never a host path). */
  file: z.string(),
  pages: z.number().int().nonnegative(),
  residentBefore: z.number().int().nonnegative(),
  residentAfter: z.number().int().nonnegative(),
});

/**
 * What was seen from outside a timed run about whether something else disturbed it. A figure the
 * host cannot give is null, never 0.
 */
export const runEvidenceSchema = z.object({
  /** CPU time of the program's tree: task-clock from its exec when counted, else user + sys. */
  cpuMs: z.number().nonnegative(),
  /** cpuMs / wall: 1 for a program that had its CPU to itself and never waited. */
  utilization: z.number().nonnegative(),
  involuntaryContextSwitches: z.number().int().nonnegative(),
  /** Time other tasks ran on the pinned CPU during the run (its busy time minus the program's). */
  otherTasksMs: z.number().nonnegative().nullable(),
  /** Time the hypervisor took the pinned CPU away (steal), during the run. */
  stealMs: z.number().nonnegative().nullable(),
  /** Moves of the program's tasks between CPUs (0 when the pinning held). */
  cpuMigrations: z.number().int().nonnegative().nullable(),
  /** Threads and processes the program started (0: single-threaded). */
  tasksStarted: z.number().int().nonnegative().nullable(),
  /** Resolution of otherTasksMs and stealMs (the kernel's accounting tick). */
  tickMs: z.number().positive().nullable(),
  /** The files the run reads, checked (and re-warmed) right before it started. */
  residency: z.array(residencySchema).default([]),
  /** Why the run counts as disturbed; empty when it is clean. */
  disturbed: z.array(z.string()).default([]),
});
export type RunEvidence = z.infer<typeof runEvidenceSchema>;

/**
 * The plausibility check: a program cannot finish faster than the host can read its input from
 * memory (input bytes over the memory bandwidth the runner measured). A time below that is flagged
 * for the organizer (every judging's measure stage, and every entrant of a final session).
 */
export const plausibilitySchema = z.strictObject({
  /** Sequential read bandwidth of this host, measured by the runner (bytes per second). */
  bandwidthBytesPerSecond: z.number().positive(),
  inputBytes: z.number().int().nonnegative(),
  /** inputBytes / bandwidth: the least time in which a program can have read its input. */
  minPlausibleMs: z.number().nonnegative(),
  /** The fastest timed run of the solution (or entrant). */
  fastestMs: z.number().nonnegative(),
  flagged: z.boolean(),
});
export type Plausibility = z.infer<typeof plausibilitySchema>;

export const runSchema = z.object({
  side: sideSchema,
  kind: z.enum(['warmup', 'timed']),
  /** Pair number for timed runs (B and S of a pair share it). */
  pair: z.number().int().nonnegative().nullable(),
  stats: processStatsSchema,
  outputBytes: z.number().int().nonnegative(),
  outputSha256: z.string(),
  correct: z.boolean(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  counters: z.record(z.string(), counterSchema).default({}),
  /** Disturbance evidence (warm-up and timed runs on the benchmark input); absent in older results. */
  evidence: runEvidenceSchema.nullable().optional(),
  /** This run's pair was discarded as disturbed and timed again. */
  discarded: z.boolean().optional(),
});
export type Run = z.infer<typeof runSchema>;

export const estimateSchema = z.object({
  speedup: z.number().positive(),
  ciLow: z.number().positive(),
  ciHigh: z.number().positive(),
  confidence: z.number(),
  halfWidthRel: z.number().nonnegative(),
  pairs: z.number().int().nonnegative(),
  method: z.string(),
  stopReason: z.enum(['precise', 'budget', 'identical-binaries']),
  /**
   * What was timed: wall time (the judge's measure), or CPU time (user + sys) — a labelled
   * estimate given only where the host was too busy for clean wall-time pairs and the manifest
   * allows `cpuTimeFallback`, or the CPU-time figure shown beside the wall-time one. Absent:
   * wall time (older results).
   */
  basis: z.enum(['wall-time', 'cpu-time']).optional(),
  /**
   * Present when the run policy states a host drift: ciLow, ciHigh and halfWidthRel then include
   * it; these are the pairs' own interval, which the stopping rule compared with the precision.
   */
  hostDrift: z
    .strictObject({
      sdRel: z.number().positive(),
      statCiLow: z.number().positive(),
      statCiHigh: z.number().positive(),
      statHalfWidthRel: z.number().nonnegative(),
    })
    .optional(),
});
export type Estimate = z.infer<typeof estimateSchema>;

export const measureSessionSchema = z.object({
  id: z.string().max(100),
  /** Most judgings timed in one round with this one, itself included (1: judged alone). */
  entrants: z.number().int().positive(),
  /** Rounds this judging was in (each: one baseline run, one run of every entrant). */
  rounds: z.number().int().nonnegative(),
  /** Baseline runs this judging's pairs used that were shared with at least one other judging. */
  sharedBaselineRuns: z.number().int().nonnegative(),
  /**
   * Rounds the session had kept before this judging's first (0: it opened the session or came
   * with its first entrants; more: it joined a session already running). Absent in results
   * recorded before it was kept.
   */
  joinedAtRound: z.number().int().nonnegative().optional(),
  /** Host time charged to this judging: its own runs and its share of every baseline run it used. */
  hostMs: z.number().nonnegative(),
  /** What the same runs would have cost judged alone (every baseline run charged whole). */
  aloneHostMs: z.number().nonnegative(),
});
export type MeasureSession = z.infer<typeof measureSessionSchema>;

export const timeSummarySchema = z.object({
  n: z.number().int(),
  minMs: z.number(),
  medianMs: z.number(),
  maxMs: z.number(),
  cv: z.number(),
});
export type TimeSummary = z.infer<typeof timeSummarySchema>;

/**
 * One differing output line. `expected` and `got` are shown as text: bytes that are not valid
 * UTF-8 are written `\xNN` and a backslash `\\` (when `escaped`), and a long line is cut to a
 * window around its first difference ("…" where cut), located in bytes by the other fields.
 */
export const diffLineSchema = z.object({
  line: z.number().int().positive(),
  expected: z.string().nullable(),
  got: z.string().nullable(),
  /** The texts use the escapes above; absent in older results (invalid bytes became U+FFFD). */
  escaped: z.boolean().optional(),
  /** 0-based byte offset of the first differing byte in the line (both lines present). */
  byteOffset: z.number().int().nonnegative().optional(),
  /** Each whole line's length in bytes, without its newline. */
  expectedBytes: z.number().int().nonnegative().optional(),
  gotBytes: z.number().int().nonnegative().optional(),
});
export type DiffLine = z.infer<typeof diffLineSchema>;

export const testOutcomeSchema = z.enum([
  'passed',
  'wrong-answer',
  'runtime-error',
  'time-limit',
  'memory-limit',
  'output-limit',
  /** Not run: an earlier required test already exceeded a limit or crashed. */
  'skipped',
]);
export type TestOutcome = z.infer<typeof testOutcomeSchema>;

export const testCaseResultSchema = z.object({
  group: z.string(),
  name: z.string(),
  required: z.boolean(),
  outcome: testOutcomeSchema,
  wallMs: z.number().nonnegative(),
  /** First differing lines (expected vs got), for a wrong answer. */
  diff: z.array(diffLineSchema).default([]),
  message: z.string().default(''),
});
export type TestCaseResult = z.infer<typeof testCaseResultSchema>;

export const buildResultSchema = z.object({
  ok: z.boolean(),
  cached: z.boolean(),
  durationMs: z.number().nonnegative(),
  /** The compiler's output (configure + build), capped. */
  log: z.string(),
  binarySha256: z.string().nullable(),
  limitExceeded: z.string().nullable().default(null),
});
export type BuildResult = z.infer<typeof buildResultSchema>;

const patchFileSchema = z.object({
  path: z.string(),
  change: z.enum(['modified', 'added', 'deleted', 'renamed']),
  from: z.string().optional(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});

export const hostFingerprintSchema = z.object({
  hostname: z.string(),
  os: z.string(),
  kernel: z.string(),
  cpuModel: z.string(),
  cpuVendor: z.string(),
  cores: z.number().int().positive(),
  compiler: z.string(),
  governor: z.string().nullable(),
  turbo: z.string().nullable(),
  sandbox: z.string(),
  /** The CPU timed runs are pinned to, and its SMT siblings (they share its core). */
  pinnedCpu: z.number().int().nullable().default(null),
  smtSiblings: z.array(z.number().int()).default([]),
  /** Transparent huge pages setting (always, madvise, never). */
  thp: z.string().nullable().default(null),
  perfVersion: z.string().nullable().default(null),
  /** Whether perf can count hardware events (cycles, instructions) on this host. */
  hardwareCounters: z.boolean().default(false),
  /**
   * How this host differs from the host conditions of the benchmark definition (the manifest's
   * `host`: THP mode, huge page pool); any difference makes the result development mode.
   */
  hostDifferences: z.array(z.string()).default([]),
  /** The runner's hardware does not match the target: results are for development only. */
  devMode: z.boolean(),
  /** The target's OS is emulated (Windows under Wine): timings are not comparable to native. */
  emulated: z.boolean(),
});
export type HostFingerprint = z.infer<typeof hostFingerprintSchema>;

/** One counter or derived metric, baseline vs solution (medians over the timed runs). */
export const counterComparisonSchema = z.object({
  name: z.string(),
  unit: z.string(),
  /** 'derived' for figures computed from counters (IPC, miss rates, frequency). */
  kind: z.enum(['counter', 'derived']),
  status: z.enum(['counted', 'unsupported', 'not-counted']),
  baseline: z.number().nullable(),
  solution: z.number().nullable(),
  /** solution / baseline, when both exist and the baseline is not zero. */
  ratio: z.number().nullable(),
  /** Lowest share of a run the counter was counting (multiplexing), in percent. */
  runningPercent: z.number().nullable(),
});
export type CounterComparison = z.infer<typeof counterComparisonSchema>;

/** Top-Down level 1: the shares of pipeline slots, summing to 1. */
export const topdownSchema = z.object({
  /** The perf metric group it came from (TopdownL1 on Intel, PipelineL1 on AMD Zen 4+). */
  source: z.string(),
  retiring: z.number().min(0).max(1),
  badSpeculation: z.number().min(0).max(1),
  frontendBound: z.number().min(0).max(1),
  backendBound: z.number().min(0).max(1),
});
export type Topdown = z.infer<typeof topdownSchema>;

export const memoryPointSchema = z.object({
  tMs: z.number().nonnegative(),
  rssBytes: z.number().nonnegative(),
  vmBytes: z.number().nonnegative(),
  anonBytes: z.number().nonnegative(),
  thpBytes: z.number().nonnegative(),
});
export type MemoryPoint = z.infer<typeof memoryPointSchema>;

export const memoryProfileSchema = z.object({
  /** Sampling interval asked for; points are down-sampled to at most 500. */
  intervalMs: z.number().positive(),
  durationMs: z.number().nonnegative(),
  samples: z.number().int().nonnegative(),
  points: z.array(memoryPointSchema).max(500),
  peaks: z.object({
    rssBytes: z.number().nonnegative(),
    vmBytes: z.number().nonnegative(),
    anonBytes: z.number().nonnegative(),
    thpBytes: z.number().nonnegative(),
  }),
});
export type MemoryProfile = z.infer<typeof memoryProfileSchema>;

/** cachegrind's simulated counts: noise-free, identical for identical binaries and inputs. */
export const cachegrindCountsSchema = z.object({
  instructions: z.number().nonnegative(),
  dataReads: z.number().nonnegative(),
  dataWrites: z.number().nonnegative(),
  l1InstructionMisses: z.number().nonnegative(),
  l1DataMisses: z.number().nonnegative(),
  llMisses: z.number().nonnegative(),
  branches: z.number().nonnegative(),
  branchMispredictions: z.number().nonnegative(),
  /** Ir + 10 × (L1 misses + branch mispredictions) + 100 × LL misses (KCachegrind's CEst formula). */
  estimatedCycles: z.number().nonnegative(),
});
export type CachegrindCounts = z.infer<typeof cachegrindCountsSchema>;

/** Longest function or frame name kept (C++ template names run to thousands of characters). */
export const MAX_FUNCTION_NAME = 400;
const functionNameSchema = z.string().max(MAX_FUNCTION_NAME);

/**
 * One function's share of a cachegrind run. Code the compiler inlined counts toward the function
 * it was inlined into, as cachegrind attributes it; names are cachegrind's demangled ones.
 */
export const functionCostSchema = z.object({
  name: functionNameSchema,
  /** The source file cachegrind names for it ("???" without debug information). */
  file: z.string().max(MAX_FUNCTION_NAME),
  instructions: z.number().nonnegative(),
  /** D1mr + D1mw. */
  l1DataMisses: z.number().nonnegative(),
  /** DLmr + DLmw. */
  llDataMisses: z.number().nonnegative(),
  /** Bcm + Bim. */
  branchMispredictions: z.number().nonnegative(),
});
export type FunctionCost = z.infer<typeof functionCostSchema>;

/** The functions that executed the most instructions, most first; the rest is summed apart. */
export const hotspotsSchema = z.object({
  functions: z.array(functionCostSchema).max(50),
  totalInstructions: z.number().nonnegative(),
  /** How many functions ran at all (the table holds the top ones). */
  functionCount: z.number().int().nonnegative(),
});
export type Hotspots = z.infer<typeof hotspotsSchema>;

export const deterministicSchema = z.object({
  tool: z.literal('cachegrind'),
  inputBytes: z.number().int().nonnegative(),
  /** The flags of the binaries valgrind ran (an -march it can decode). */
  flags: z.array(z.string()),
  baseline: cachegrindCountsSchema,
  solution: cachegrindCountsSchema,
  /** Baseline instructions / solution instructions. */
  instructionSpeedup: z.number().positive(),
  /** Per-function counts of the same runs; null in results judged before they were kept. */
  hotspots: z
    .object({ baseline: hotspotsSchema, solution: hotspotsSchema })
    .nullable()
    .default(null),
});
export type Deterministic = z.infer<typeof deterministicSchema>;

/** One distinct call stack of a sampled profile, outermost frame first, and how often it was seen. */
export const foldedStackSchema = z.object({
  frames: z.array(functionNameSchema).min(1).max(128),
  samples: z.number().int().positive(),
});
export type FoldedStack = z.infer<typeof foldedStackSchema>;

/** `perf record` of one run of the timed input: its call stacks folded (Brendan Gregg's format). */
export const sampledProfileSchema = z.object({
  /** The sampling event: cycles where the host has a PMU, cpu-clock (a timer) elsewhere. */
  event: z.string().max(64),
  frequencyHz: z.number().positive(),
  /** Samples of the program, in `stacks` or merged into `otherSamples`. */
  samples: z.number().int().nonnegative(),
  stacks: z.array(foldedStackSchema).max(2000),
  /** Samples of the rarest stacks, left out to keep the result small. */
  otherSamples: z.number().int().nonnegative(),
});
export type SampledProfile = z.infer<typeof sampledProfileSchema>;

/** The profile stage's parts, each absent when it did not run. */
export const profilePartsSchema = z
  .object({
    /** One run per side under the memory sampler and perf record (the baseline's maybe cached). */
    memoryAndStacks: z.number().nonnegative(),
    topdown: z.number().nonnegative(),
    /** The deterministic rebuild and the cachegrind runs (beside the runs where the host can). */
    cachegrind: z.number().nonnegative(),
    /** How long the stage waited for cachegrind after the runs it went on beside. */
    cachegrindWait: z.number().nonnegative(),
  })
  .partial();
export type ProfileParts = z.infer<typeof profilePartsSchema>;

/** The untimed extra runs: memory over time, Top-Down, cachegrind. Each part may be absent, with a note saying why. */
export const profileStageSchema = z.object({
  memory: z.object({ baseline: memoryProfileSchema, solution: memoryProfileSchema }).nullable(),
  topdown: z.object({ baseline: topdownSchema, solution: topdownSchema }).nullable(),
  deterministic: deterministicSchema.nullable(),
  /** Where the time goes in one run of the timed input each side; null where it was not taken. */
  sampled: z
    .object({ baseline: sampledProfileSchema, solution: sampledProfileSchema })
    .nullable()
    .default(null),
  /** Why a part is missing or what limited it ("Top-Down unsupported: no PMU on this host"). */
  notes: z.array(z.string()),
  /** Milliseconds each part took (what the stage costs); absent in results judged before. */
  partsMs: profilePartsSchema.optional(),
});
export type ProfileStage = z.infer<typeof profileStageSchema>;

/**
 * The benchmark input a result was timed on, as the runner resolved it: the scorer ranks only
 * results timed on the contest's current definition. The seed is never stored, only a fingerprint.
 */
export const timedInputSchema = z.object({
  sizeBytes: z.number().int().positive(),
  /** lib/core/challenge/benchmark-definition.ts seedFingerprint(); null for a local, non-secret seed. */
  seedFingerprint: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .nullable(),
  development: z.boolean(),
});
export type TimedInput = z.infer<typeof timedInputSchema>;

export const judgingResultSchema = z.object({
  schemaVersion: z.literal(1),
  judgingId: z.string().nullable(),
  challenge: z.object({ slug: z.string(), version: z.number().int() }),
  target: targetIdSchema,
  verdict: verdictSchema,
  /** One sentence a contestant reads first. */
  message: z.string(),
  stages: z.object({
    intake: z.object({
      ok: z.boolean(),
      reason: z.string().nullable(),
      files: z.array(patchFileSchema),
      format: z.string().nullable(),
    }),
    build: z
      .object({
        baseline: buildResultSchema,
        solution: buildResultSchema,
        identicalBinaries: z.boolean(),
      })
      .nullable(),
    test: z.object({ cases: z.array(testCaseResultSchema) }).nullable(),
    measure: z
      .object({
        inputBytes: z.number().int().nonnegative(),
        inputSha256: z.string(),
        cpu: z.number().int().nullable(),
        runs: z.array(runSchema),
        estimate: estimateSchema.nullable(),
        baseline: timeSummarySchema.nullable(),
        solution: timeSummarySchema.nullable(),
        /** Every counter and derived metric side by side (medians of the timed runs). */
        counters: z.array(counterComparisonSchema).default([]),
        /** The same statistics on the runs' CPU times (user + sys), over the same pairs; absent in older results. */
        cpuTimeEstimate: estimateSchema.nullable().optional(),
        /** The solution's fastest run against the least time its input takes to read; absent in older results, null where the host's bandwidth is unknown. */
        plausibility: plausibilitySchema.nullable().optional(),
        /**
         * The session this judging was timed in: judgings of the same challenge, target and
         * benchmark definition on one host share each round's baseline run. Absent in older results.
         */
        session: measureSessionSchema.optional(),
        /** Pairs discarded as disturbed, and why; absent in older results. */
        disturbance: z
          .object({
            discardedPairs: z.number().int().nonnegative(),
            /** Reason (e.g. 'other tasks on the CPU') → pairs discarded for it. */
            reasons: z.record(z.string(), z.number().int().nonnegative()),
            /** The host stayed too busy for enough clean pairs within the budget. */
            tooBusy: z.boolean(),
            /** The thresholds applied (the manifest's, with defaults filled in). */
            thresholds: z.object({
              maxOtherShare: z.number(),
              minUtilization: z.number(),
              maxStealShare: z.number(),
              maxDiscardedPairs: z.number().int(),
              cpuTimeFallback: z.boolean(),
            }),
            /** Most threads and processes any solution run started (null: not measurable here). */
            solutionTasksStarted: z.number().int().nonnegative().nullable(),
          })
          .nullable()
          .optional(),
      })
      .nullable(),
    profile: profileStageSchema.nullable().default(null),
  }),
  warnings: z.array(z.string()),
  host: hostFingerprintSchema,
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  /** Per-stage wall time of the judging itself (overhead accounting). */
  stageDurationsMs: z.partialRecord(stageSchema, z.number().nonnegative()),
  /** The benchmark input it was timed on (set by runners; absent from local judgings). */
  benchmark: timedInputSchema.optional(),
});
export type JudgingResult = z.infer<typeof judgingResultSchema>;

/** A host no runner reported (a result the platform had to write itself): placeholders, not guesses. */
export const UNKNOWN_HOST: HostFingerprint = {
  hostname: 'unknown',
  os: 'unknown',
  kernel: 'unknown',
  cpuModel: 'unknown',
  cpuVendor: 'unknown',
  cores: 1,
  compiler: 'unknown',
  governor: null,
  turbo: null,
  sandbox: 'none',
  pinnedCpu: null,
  smtSiblings: [],
  thp: null,
  perfVersion: null,
  hardwareCounters: false,
  hostDifferences: [],
  devMode: false,
  emulated: false,
};

/**
 * The one way a judging result starts: a JUDGE_ERROR with no stage past intake, started and
 * finished as given (the judge then fills in what it learns; the platform's own faults stay so).
 */
export function newJudgingResult(fields: {
  judgingId: string | null;
  challenge: JudgingResult['challenge'];
  target: JudgingResult['target'];
  host: HostFingerprint;
  startedAt: Date;
  finishedAt?: Date;
  message?: string;
  warnings?: string[];
}): JudgingResult {
  const finished = fields.finishedAt ?? fields.startedAt;
  return {
    schemaVersion: 1,
    judgingId: fields.judgingId,
    challenge: fields.challenge,
    target: fields.target,
    verdict: 'JUDGE_ERROR',
    message: fields.message ?? '',
    stages: emptyStages(),
    warnings: fields.warnings ?? [],
    host: fields.host,
    startedAt: fields.startedAt.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - fields.startedAt.getTime(),
    stageDurationsMs: {},
  };
}

/** The stages of a judging that has not got past intake (a new result, or a platform fault). */
export function emptyStages(): JudgingResult['stages'] {
  return {
    intake: { ok: false, reason: null, files: [], format: null },
    build: null,
    test: null,
    measure: null,
    profile: null,
  };
}
