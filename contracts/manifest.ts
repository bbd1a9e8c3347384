// The challenge manifest: everything that defines one contest, validated before anything uses it.
import { z } from 'zod';
import { byteSizeSchema } from './size';
import { KEBAB_CASE_PATTERN, slugSchema } from './slug';
import { allowableSyscallSchema } from './syscalls';

export const TARGET_IDS = ['linux-intel', 'windows-amd'] as const;
export const targetIdSchema = z.enum(TARGET_IDS);
export type TargetId = z.infer<typeof targetIdSchema>;

const relativePathPattern = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), {
    message: 'must be a relative path pattern without ".."',
  });

export const toolchainSchema = z.strictObject({
  /** How the flags are spelled: GCC/Clang style or MSVC (clang-cl) style. */
  kind: z.enum(['clang', 'gcc', 'clang-cl']),
  /** The C++ compiler executable (looked up on PATH when not absolute). */
  cxx: z.string().min(1),
  /** Compiler flags used for both baseline and solution. */
  flags: z.array(z.string().min(1)).min(1),
  /** Flags for builds that valgrind must decode (deterministic mode): no AVX-512. */
  deterministicFlags: z.array(z.string().min(1)).optional(),
});
export type Toolchain = z.infer<typeof toolchainSchema>;

export const targetSchema = z.strictObject({
  os: z.enum(['linux', 'windows']),
  /** CPU vendor string as the CPU reports it (cpuid / /proc/cpuinfo). */
  cpuVendor: z.enum(['GenuineIntel', 'AuthenticAMD']),
  description: z.string().optional(),
  toolchain: toolchainSchema,
});
export type Target = z.infer<typeof targetSchema>;

const seededInputSchema = z.strictObject({
  size: byteSizeSchema,
  seed: z.string().min(1),
  description: z.string().optional(),
});

const secretInputSchema = z.strictObject({
  size: byteSizeSchema,
  /** The seed is a secret the organizer sets; only its variable's name is in the manifest. */
  seedEnv: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an environment variable name (A-Z, 0-9, _)'),
  description: z.string().optional(),
});

const testGroupSchema = z.strictObject({
  /** Folder under the tests directory holding this group's cases. */
  id: z.string().regex(KEBAB_CASE_PATTERN, 'must be kebab-case'),
  description: z.string().min(1),
  /** Required: a failure is the verdict. Advisory: a failure is a warning in the report. */
  required: z.boolean().default(true),
});

const positiveSeconds = z.number().positive();

export const limitsSchema = z.strictObject({
  buildSeconds: positiveSeconds,
  /** Wall-time limit for one run on a test input. */
  testRunSeconds: positiveSeconds,
  /** Wall-time limit for one run on the benchmark input. */
  benchmarkRunSeconds: positiveSeconds,
  memory: byteSizeSchema,
  outputBytes: byteSizeSchema,
  patchBytes: byteSizeSchema,
  /** Largest file a run or build may write. */
  fileBytes: byteSizeSchema,
  processes: z.number().int().positive(),
  /** Denied syscalls (contracts/syscalls.ts) this challenge's programs may use; never the keyrings. */
  allowSyscalls: z.array(allowableSyscallSchema).max(64).optional(),
});
export type Limits = z.infer<typeof limitsSchema>;

/**
 * When a timed run counts as disturbed (another task shared its CPU, the hypervisor stole time, it
 * waited), and what the judge may spend to replace the pairs it discards. Every field has a
 * default (DEFAULT_DISTURBANCE_POLICY); the organizer tunes them for the hosts they have.
 */
export const disturbancePolicySchema = z.strictObject({
  /**
   * Other tasks' time on the pinned CPU during a run, as a share of its wall time, above which the
   * run is disturbed. The figure comes from tick accounting (10 ms here): two ticks are allowed on
   * top, so a short run is not called disturbed by the tick it happened to share.
   */
  maxOtherShare: z.number().min(0).max(1).optional(),
  /** The program's CPU time per wall time below which a run waited (for the CPU, or for I/O). */
  minUtilization: z.number().min(0).max(1).optional(),
  /** Steal time (the hypervisor ran another guest) as a share of the run's wall time. */
  maxStealShare: z.number().min(0).max(1).optional(),
  /** Most pairs discarded as disturbed before the judge gives up on this host (default: maxPairs). */
  maxDiscardedPairs: z.number().int().nonnegative().optional(),
  /**
   * When the host stays too busy for clean pairs: false (default) makes it a judge error the queue
   * retries later; true gives a speedup estimated from CPU time instead, labelled as such.
   */
  cpuTimeFallback: z.boolean().optional(),
});
export type DisturbancePolicy = z.infer<typeof disturbancePolicySchema>;

export const runPolicySchema = z
  .strictObject({
    warmups: z.number().int().nonnegative(),
    minPairs: z.number().int().min(3),
    maxPairs: z.number().int().min(3),
    /** Stop adding pairs once the 95% interval's half-width is within this fraction of the speedup. */
    precision: z.number().positive().max(0.5),
    /** CPU to pin timed runs to; a runner's own setting wins. */
    cpu: z.number().int().nonnegative().optional(),
    /** Disturbed runs: thresholds and the budget for re-timing (defaults when absent). */
    disturbance: disturbancePolicySchema.optional(),
    /**
     * The judge host's drift between judgings, as a relative standard deviation (0.014 = 1.4%),
     * measured with `npm run bench -- judge reproducibility`: every interval includes it beside
     * the pairs' own uncertainty (lib/core/stats/host-drift.ts). Absent or 0: intervals from the pairs
     * alone.
     */
    hostDrift: z.number().min(0).max(0.2).optional(),
    /**
     * At most this many judgings of the same challenge, target and benchmark definition share one
     * session on a host (one baseline run per round for all of them); 1 judges each alone.
     */
    sessionSize: z.number().int().min(1).max(32).optional(),
  })
  .refine((p) => p.maxPairs >= p.minPairs, {
    message: 'maxPairs must be at least minPairs',
    path: ['maxPairs'],
  });
export type RunPolicy = z.infer<typeof runPolicySchema>;

const scoringSchema = z.strictObject({
  /** How the targets' speedups combine: their sum (as the 2022 contest ranked) or geometric mean. */
  formula: z.enum(['sum', 'geomean']).default('sum'),
  description: z.string().optional(),
});

/** Transparent huge pages modes (/sys/kernel/mm/transparent_hugepage/enabled). */
export const THP_MODES = ['always', 'madvise', 'never'] as const;
export type ThpMode = (typeof THP_MODES)[number];
/** The huge page size of the reserved pool the manifest describes (x86-64's 2 MiB pages). */
export const HUGE_PAGE_BYTES = 2 * 1024 * 1024;

/**
 * What a judge host provides for memory: part of the benchmark definition, because a solution that
 * maps huge pages runs (or dies) differently with another setting. Runners check it before judging
 * on Linux hosts (the linux targets, and windows-amd emulated under Wine); the statement tells
 * contestants (lib/core/challenge/host-conditions.ts says it in words).
 */
export const hostMemorySchema = z.strictObject({
  /** The transparent huge pages mode the host runs with. */
  transparentHugePages: z.enum(THP_MODES),
  /**
   * The reserved pool of 2 MiB huge pages (`vm.nr_hugepages`, what `MAP_HUGETLB` draws from):
   * `none` (such an mmap fails with ENOMEM), or the pool's size ("1GiB", a multiple of 2 MiB).
   */
  hugePages: z.union([
    z.literal('none'),
    byteSizeSchema.refine((b) => b > 0 && b % HUGE_PAGE_BYTES === 0, {
      message: 'must be "none" or a positive multiple of 2MiB (for example "1GiB")',
    }),
  ]),
});
export type HostMemory = z.infer<typeof hostMemorySchema>;

const hostConditionsSchema = z.strictObject({ memory: hostMemorySchema });

/** The macros a toolchain's flags define (-DNAME, /DNAME, -DNAME=value), for the symmetry rule. */
export function definedMacros(toolchain: Toolchain): string[] {
  const names = toolchain.flags
    .map((f) => /^[-/]D([A-Za-z_][A-Za-z0-9_]*)/.exec(f)?.[1])
    .filter((n): n is string => n !== undefined);
  return [...new Set(names)].sort();
}

export const manifestSchema = z
  .strictObject({
    slug: slugSchema,
    /** Bumped whenever anything that affects judging changes (template, harness, tests, flags). */
    version: z.number().int().positive(),
    title: z.string().min(1),
    summary: z.string().min(1),
    readme: relativePathPattern,
    templateDir: relativePathPattern,
    harnessDir: relativePathPattern,
    testsDir: relativePathPattern,
    /** The files a contestant edits; all other template files are protected too. */
    editableFiles: z.array(relativePathPattern).min(1),
    /** Glob patterns of new files a patch may add. */
    allowedNewFiles: z.array(relativePathPattern).min(1),
    /** Glob patterns a patch may never touch (the harness: driver, build files, tests). */
    protectedPaths: z.array(relativePathPattern).min(1),
    targets: z
      .partialRecord(targetIdSchema, targetSchema)
      .refine((t) => Object.keys(t).length > 0, {
        message: 'at least one target is needed',
      }),
    inputs: z.strictObject({
      public: seededInputSchema,
      benchmark: secretInputSchema,
      /** Cachegrind's noise-free counts on a small input; on unless the organizer turns it off. */
      deterministic: seededInputSchema.extend({ enabled: z.boolean().default(true) }),
      /** Benchmark inputs contain no \r, \v or \f unless the organizer asks for them. */
      rareSeparators: z.boolean().default(false),
    }),
    tests: z.strictObject({ groups: z.array(testGroupSchema).min(1) }),
    limits: limitsSchema,
    runPolicy: runPolicySchema,
    scoring: scoringSchema,
    quota: z.strictObject({ submissionsPerHour: z.number().int().positive() }),
    deadline: z.iso.datetime({ offset: true }).optional(),
    /** What every judge host provides (memory: THP mode, huge page pool); checked by runners. */
    host: hostConditionsSchema.optional(),
  })
  .superRefine((m, ctx) => {
    // A macro such as NDEBUG defined on one target only makes an assert decide a verdict there only.
    const defined = Object.entries(m.targets).map(
      ([id, t]) => [id, definedMacros(t.toolchain)] as const,
    );
    const [firstId, firstMacros] = defined[0] ?? ['', []];
    for (const [id, macros] of defined.slice(1)) {
      if (macros.join(' ') !== firstMacros.join(' '))
        ctx.addIssue({
          code: 'custom',
          message:
            `targets ${firstId} and ${id} define different macros (${firstMacros.join(', ') || 'none'} ` +
            `vs ${macros.join(', ') || 'none'}): build flags must be symmetric across targets`,
          path: ['targets', id, 'toolchain', 'flags'],
        });
    }
    const ids = m.tests.groups.map((g) => g.id);
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i)
        ctx.addIssue({
          code: 'custom',
          message: `duplicate test group "${id}"`,
          path: ['tests', 'groups', i, 'id'],
        });
    });
  });
export type Manifest = z.infer<typeof manifestSchema>;
