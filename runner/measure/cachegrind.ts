// Deterministic mode: one run under `valgrind --tool=cachegrind` for noise-free instruction counts
// and simulated cache and branch misses. The counts are informational, never part of a verdict.
import { AppError } from '../../contracts';
import { constants } from 'node:fs';
import { lstat, mkdtemp, open, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  MAX_FUNCTION_NAME,
  type CachegrindCounts,
  type Deterministic,
  type FunctionCost,
  type Hotspots,
  type Limits,
  type Toolchain,
} from '../../contracts';
import { SANDBOX_INPUT, SANDBOX_PROGRAM } from '../sandbox/run-program';
import type { Sandbox, SandboxResult } from '../sandbox/sandbox';

/** The events `--cache-sim=yes --branch-sim=yes` records, in the order valgrind 3.19 writes them. */
export const CACHEGRIND_EVENTS = [
  'Ir',
  'I1mr',
  'ILmr',
  'Dr',
  'D1mr',
  'DLmr',
  'Dw',
  'D1mw',
  'DLmw',
  'Bc',
  'Bcm',
  'Bi',
  'Bim',
] as const;
export type CachegrindEvent = (typeof CACHEGRIND_EVENTS)[number];

/** `<size in bytes>,<associativity>,<line size>`, as --I1, --D1 and --LL take them. */
export interface CacheLevel {
  sizeBytes: number;
  assoc: number;
  lineBytes: number;
}

export interface CacheGeometry {
  I1: CacheLevel;
  D1: CacheLevel;
  LL: CacheLevel;
}

/**
 * The simulated caches, pinned rather than read from CPUID, so that counts from different hosts
 * compare: a typical x86 core (32 KiB 8-way L1s, 64-byte lines) and an 8 MiB 16-way last level. Left
 * to itself, valgrind copies the host's caches, and on virtual machines CPUID can be odd (this dev VM
 * reports a 320 MiB direct-mapped L3, which valgrind cuts to 256 MiB direct-mapped). Valgrind needs a
 * power-of-two number of sets: 32768 / (8 × 64) = 64 and 8 MiB / (16 × 64) = 8192.
 */
const PINNED_CACHE_GEOMETRY: CacheGeometry = {
  I1: { sizeBytes: 32 * 1024, assoc: 8, lineBytes: 64 },
  D1: { sizeBytes: 32 * 1024, assoc: 8, lineBytes: 64 },
  LL: { sizeBytes: 8 * 1024 * 1024, assoc: 16, lineBytes: 64 },
};

export interface CachegrindArgsOptions {
  /** The simulated caches; null lets valgrind copy the host's (counts then differ across hosts). */
  cache?: CacheGeometry | null;
  /** Send valgrind's own messages to this file, keeping the program's stderr its own. */
  logFile?: string;
}

function cacheOption(level: CacheLevel): string {
  return `${level.sizeBytes},${level.assoc},${level.lineBytes}`;
}

/** The argv that runs `command` under cachegrind with cache and branch simulation. */
export function cachegrindArgs(
  valgrind: string,
  outFile: string,
  command: string[],
  options: CachegrindArgsOptions = {},
): string[] {
  const cache = options.cache === undefined ? PINNED_CACHE_GEOMETRY : options.cache;
  const args = [valgrind, '--tool=cachegrind', '--cache-sim=yes', '--branch-sim=yes'];
  if (cache) {
    args.push(`--I1=${cacheOption(cache.I1)}`);
    args.push(`--D1=${cacheOption(cache.D1)}`);
    args.push(`--LL=${cacheOption(cache.LL)}`);
  }
  if (options.logFile !== undefined) args.push(`--log-file=${options.logFile}`);
  args.push(`--cachegrind-out-file=${outFile}`, '--', ...command);
  return args;
}

/**
 * Why deterministic mode produced no counts. None of these is the contestant's fault or a verdict:
 * the judge notes "deterministic mode failed: <message>" and carries on.
 * - `unavailable`: valgrind is not installed (or not where we look).
 * - `unsupported-instruction`: valgrind cannot decode an instruction of the binary (AVX-512 with
 *   valgrind 3.19): build with the toolchain's deterministicFlags.
 * - `program-failed`: the program crashed or exited non-zero under valgrind.
 * - `limit`: the run hit a sandbox limit (time, memory, output, file size, processes).
 * - `bad-output`: the cachegrind.out file is missing, not a regular file, too large or malformed.
 */
export type CachegrindFailure =
  'unavailable' | 'unsupported-instruction' | 'program-failed' | 'limit' | 'bad-output';

export class CachegrindError extends AppError {
  override name = 'CachegrindError';
  readonly code = 'unavailable' as const;
  constructor(
    readonly kind: CachegrindFailure,
    message: string,
  ) {
    super(message);
  }
}

function parseCount(token: string, event: string): bigint {
  if (token === '.') return 0n;
  if (!/^\d+$/.test(token))
    throw new CachegrindError(
      'bad-output',
      `cachegrind.out: count "${token}" of ${event} is not a number`,
    );
  return BigInt(token);
}

/**
 * Totals per event from a cachegrind.out file (format: valgrind's cachegrind manual, "Cachegrind
 * Output File Format"): the `events:` line names the columns and the `summary:` line holds the
 * totals. Counts may be "." (zero) and trailing counts may be left out (zero). Per-line data are
 * not read. Two events or summary lines mean two processes wrote one file (a fork): refused.
 */
export function parseCachegrindSummary(text: string): Map<string, bigint> {
  let events: string[] | null = null;
  let summary: string[] | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('events:')) {
      if (events)
        throw new CachegrindError(
          'bad-output',
          'cachegrind.out has two "events:" lines (did the program fork?)',
        );
      events = line.slice('events:'.length).trim().split(/\s+/).filter(Boolean);
    } else if (line.startsWith('summary:')) {
      if (summary)
        throw new CachegrindError(
          'bad-output',
          'cachegrind.out has two "summary:" lines (did the program fork?)',
        );
      summary = line.slice('summary:'.length).trim().split(/\s+/).filter(Boolean);
    }
  }
  if (!events || events.length === 0)
    throw new CachegrindError('bad-output', 'cachegrind.out has no "events:" line');
  if (!summary)
    throw new CachegrindError(
      'bad-output',
      'cachegrind.out has no "summary:" line (valgrind stopped before writing it?)',
    );
  if (summary.length > events.length)
    throw new CachegrindError(
      'bad-output',
      `cachegrind.out: summary has ${summary.length} counts for ${events.length} events`,
    );
  const totals = new Map<string, bigint>();
  events.forEach((event, i) => {
    const token = summary[i];
    totals.set(event, token === undefined ? 0n : parseCount(token, event));
  });
  return totals;
}

/** How many functions a result keeps per side, the most instructions first. */
const HOTSPOT_FUNCTIONS = 25;

/**
 * Per-function counts from a cachegrind.out file's `fl=`/`fn=` blocks (cg_annotate's function
 * view). Code inlined into a function is counted there: cachegrind names the function whose
 * machine code ran (`fi=`/`fe=` lines only change the source file of the lines that follow). The
 * names are cachegrind's own demangling (--demangle=yes is its default). A function of the same
 * name in several files (static helpers, or a template instantiated in two) is summed under one
 * name; the file shown is the one with the most instructions.
 */
export function parseCachegrindFunctions(text: string, top = HOTSPOT_FUNCTIONS): Hotspots {
  let events: string[] | null = null;
  const byName = new Map<string, { cost: FunctionCost; files: Map<string, number> }>();
  let file = '???';
  let current: { cost: FunctionCost; files: Map<string, number> } | null = null;
  let index: Record<'Ir' | 'D1mr' | 'D1mw' | 'DLmr' | 'DLmw' | 'Bcm' | 'Bim', number> | null = null;
  for (const line of text.split('\n')) {
    const first = line.charCodeAt(0);
    if (first >= 48 && first <= 57) {
      if (!current || !index) continue;
      const fields = line.split(' ');
      // fields[0] is the source line; counts follow in the events' order.
      const count = (i: number) => {
        const token = fields[i + 1];
        return token === undefined || token === '.' ? 0 : Number(token) || 0;
      };
      const ir = count(index.Ir);
      current.cost.instructions += ir;
      current.cost.l1DataMisses += count(index.D1mr) + count(index.D1mw);
      current.cost.llDataMisses += count(index.DLmr) + count(index.DLmw);
      current.cost.branchMispredictions += count(index.Bcm) + count(index.Bim);
      current.files.set(file, (current.files.get(file) ?? 0) + ir);
    } else if (line.startsWith('fn=')) {
      const name = line.slice(3).slice(0, MAX_FUNCTION_NAME);
      current = byName.get(name) ?? null;
      if (!current) {
        current = {
          cost: {
            name,
            file,
            instructions: 0,
            l1DataMisses: 0,
            llDataMisses: 0,
            branchMispredictions: 0,
          },
          files: new Map(),
        };
        byName.set(name, current);
      }
    } else if (line.startsWith('fl=')) {
      file = line.slice(3).slice(0, MAX_FUNCTION_NAME);
    } else if (line.startsWith('events:')) {
      events = line.slice('events:'.length).trim().split(/\s+/);
      const at = (e: CachegrindEvent) => {
        const i = events!.indexOf(e);
        if (i < 0) throw new CachegrindError('bad-output', `cachegrind.out lacks the event ${e}`);
        return i;
      };
      index = {
        Ir: at('Ir'),
        D1mr: at('D1mr'),
        D1mw: at('D1mw'),
        DLmr: at('DLmr'),
        DLmw: at('DLmw'),
        Bcm: at('Bcm'),
        Bim: at('Bim'),
      };
    }
  }
  if (!events) throw new CachegrindError('bad-output', 'cachegrind.out has no "events:" line');
  const all = [...byName.values()].map(({ cost, files }) => {
    const main = [...files].sort((a, b) => b[1] - a[1])[0];
    return { ...cost, file: main ? main[0] : cost.file };
  });
  all.sort((a, b) => b.instructions - a.instructions || (a.name < b.name ? -1 : 1));
  return {
    functions: all.filter((f) => f.instructions > 0).slice(0, top),
    totalInstructions: all.reduce((sum, f) => sum + f.instructions, 0),
    functionCount: all.filter((f) => f.instructions > 0).length,
  };
}

/** A count as a Number, refusing one past 2^53 where Number stops being exact. */
function exact(value: bigint, event: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new CachegrindError(
      'bad-output',
      `cachegrind.out: ${event} = ${value} is too large to hold exactly`,
    );
  return Number(value);
}

/**
 * The counts of a cachegrind.out file recorded with --cache-sim=yes --branch-sim=yes.
 *
 * estimatedCycles = Ir + 10 × (I1mr + D1mr + D1mw + Bcm + Bim) + 100 × (ILmr + DLmr + DLmw): the
 * "cycle estimation" (CEst) of KCachegrind (KDE/kcachegrind, libcore/globalconfig.cpp,
 * `knownFormula`: "Ir + 10 Bm + 10 L1m + 20 Ge + 100 L2m + 100 LLm"; Ge is callgrind's global bus
 * event and L2m is absent from cachegrind's output, so both drop out). Its weights follow valgrind's
 * cachegrind manual (section 5.1, "Overview"): "an L1 miss will typically cost around 10 cycles, an
 * LL miss can cost as much as 200 cycles, and a mispredicted branch costs in the region of 10 to 30
 * cycles". A rough guide for comparing two programs, not a prediction of real cycles.
 *
 * Each count must be below 2^53 (about 9 × 10^15, days of valgrind time); estimatedCycles is
 * summed exactly and rounded to the nearest double when it passes 2^53.
 */
export function parseCachegrindOut(text: string): CachegrindCounts {
  const totals = parseCachegrindSummary(text);
  const missing = CACHEGRIND_EVENTS.filter((e) => !totals.has(e));
  if (missing.length > 0) {
    const hint = missing.some((e) => e.startsWith('B'))
      ? ' (recorded without --branch-sim=yes?)'
      : missing.some((e) => e !== 'Ir')
        ? ' (recorded without --cache-sim=yes?)'
        : '';
    throw new CachegrindError(
      'bad-output',
      `cachegrind.out lacks the events ${missing.join(' ')}${hint}`,
    );
  }
  const big = (e: CachegrindEvent): bigint => totals.get(e)!;
  const n = (e: CachegrindEvent): number => exact(big(e), e);
  const l1Misses = big('I1mr') + big('D1mr') + big('D1mw');
  const llMisses = big('ILmr') + big('DLmr') + big('DLmw');
  const mispredictions = big('Bcm') + big('Bim');
  const cycles = big('Ir') + 10n * (l1Misses + mispredictions) + 100n * llMisses;
  return {
    instructions: n('Ir'),
    dataReads: n('Dr'),
    dataWrites: n('Dw'),
    l1InstructionMisses: n('I1mr'),
    l1DataMisses: exact(big('D1mr') + big('D1mw'), 'D1mr + D1mw'),
    llMisses: exact(llMisses, 'ILmr + DLmr + DLmw'),
    branches: exact(big('Bc') + big('Bi'), 'Bc + Bi'),
    branchMispredictions: exact(mispredictions, 'Bcm + Bim'),
    estimatedCycles: Number(cycles),
  };
}

/** The flags to build binaries valgrind can decode: the manifest's, else the normal ones without -march=native. */
export function deterministicFlagsFor(toolchain: Toolchain): string[] {
  if (toolchain.deterministicFlags) return [...toolchain.deterministicFlags];
  return toolchain.flags.map((f) => (f === '-march=native' ? '-march=x86-64-v3' : f));
}

/** Baseline instructions / solution instructions: above 1 when the solution executes fewer. */
export function instructionSpeedup(baseline: CachegrindCounts, solution: CachegrindCounts): number {
  if (!(baseline.instructions > 0) || !(solution.instructions > 0))
    throw new RangeError('instruction counts must be positive to compare them');
  return baseline.instructions / solution.instructions;
}

/** One cachegrind run's totals and its per-function counts. */
export interface CachegrindRun {
  counts: CachegrindCounts;
  hotspots: Hotspots;
}

/** The contract's deterministic section from the two runs (hotspots: null when not kept). */
export function deterministicResult(options: {
  inputBytes: number;
  flags: string[];
  baseline: CachegrindCounts;
  solution: CachegrindCounts;
  hotspots?: { baseline: Hotspots; solution: Hotspots } | null;
}): Deterministic {
  return {
    tool: 'cachegrind',
    inputBytes: options.inputBytes,
    flags: [...options.flags],
    baseline: options.baseline,
    solution: options.solution,
    instructionSpeedup: instructionSpeedup(options.baseline, options.solution),
    hotspots: options.hotspots ?? null,
  };
}

/** Where valgrind is installed on Debian/Ubuntu; /usr is visible read-only in the sandbox. */
const DEFAULT_VALGRIND = '/usr/bin/valgrind';
/** Memory for valgrind itself (translated code, its heap) on top of the program's limit. */
const VALGRIND_MEMORY_HEADROOM_BYTES = 512 * 1024 * 1024;
/** A real cachegrind.out of the wordcount baseline is ~100 KiB (per-line counts); far more is not ours. */
const MAX_CACHEGRIND_OUT_BYTES = 16 * 1024 * 1024;
/** valgrind's own log (the program's stderr is not in it): a few KiB, even when it fails. */
const MAX_LOG_BYTES = 1024 * 1024;
/** Written inside the run's directory by valgrind, i.e. by the untrusted program's uid. */
const OUT_FILE = '.cachegrind.out';
const LOG_FILE = '.valgrind.log';

export interface RunCachegrindOptions {
  sandbox: Sandbox;
  /** The program, built with deterministicFlagsFor(toolchain). */
  binary: string;
  input: string;
  /** Parent for the run's fresh directory. */
  workDir: string;
  limits: Limits;
  /** The valgrind launcher as seen inside the sandbox (default /usr/bin/valgrind). */
  valgrind?: string;
  /**
   * Default: the manifest's benchmarkRunSeconds. Cachegrind is 20–100× slower than a native run
   * (~15× for the wordcount baseline here: 3.3 s for 4 MiB), on a far smaller input.
   */
  wallTimeMs?: number;
  cache?: CacheGeometry | null;
  cpu?: number;
  signal?: AbortSignal;
}

/**
 * Runs the program once under cachegrind inside the sandbox, exactly as the judge runs it (program
 * at /judge/program, input at /judge/input.txt, a fresh directory), and returns the counts.
 *
 * The counts are informational, never a verdict: valgrind writes them from inside the untrusted
 * process, so the program could overwrite the file with numbers of its choosing. They are read
 * without following links and with a size cap, and a malformed file is only a CachegrindError.
 *
 * Throws CachegrindError when valgrind produced no counts; an abort and a broken sandbox
 * (UnavailableError) propagate as they are.
 */
export async function runCachegrind(options: RunCachegrindOptions): Promise<CachegrindRun> {
  const valgrind = options.valgrind ?? DEFAULT_VALGRIND;
  // The sandbox shows the host's /usr at the same path, so the host path is the sandbox path.
  if (!(await lstat(valgrind).catch(() => null)))
    throw new CachegrindError(
      'unavailable',
      `valgrind is not installed (${valgrind} not found): apt-get install valgrind`,
    );
  const runDir = await mkdtemp(path.join(options.workDir, 'cachegrind-'));
  const outFile = path.join(runDir, OUT_FILE);
  const logFile = path.join(runDir, LOG_FILE);
  const argv = cachegrindArgs(valgrind, outFile, [SANDBOX_PROGRAM, SANDBOX_INPUT], {
    logFile,
    cache: options.cache,
  });
  try {
    const result = await options.sandbox.run({
      command: argv[0]!,
      args: argv.slice(1),
      workDir: runDir,
      readOnly: [
        { host: options.binary, sandbox: SANDBOX_PROGRAM },
        { host: options.input, sandbox: SANDBOX_INPUT },
      ],
      // The same environment and cwd on every host, whatever the work dir's path: the program's
      // startup reads them, and their lengths would show in the counts. The private /tmp is empty,
      // so valgrind finds no ~/.valgrindrc or ./.valgrindrc there; VALGRIND_OPTS is not set.
      cwd: '/tmp',
      env: { PATH: '/usr/bin:/bin', HOME: '/tmp', LC_ALL: 'C' },
      stdout: 'hash',
      cpu: options.cpu,
      allowSyscalls: options.limits.allowSyscalls,
      limits: {
        wallTimeMs: options.wallTimeMs ?? options.limits.benchmarkRunSeconds * 1000,
        memoryBytes: options.limits.memory + VALGRIND_MEMORY_HEADROOM_BYTES,
        processes: options.limits.processes,
        outputBytes: options.limits.outputBytes,
        fileBytes: Math.max(options.limits.fileBytes, MAX_CACHEGRIND_OUT_BYTES),
      },
      signal: options.signal,
    });
    const failure = describeFailure(result, await readCapped(logFile, MAX_LOG_BYTES));
    if (failure) throw failure;
    const text = await readCapped(outFile, MAX_CACHEGRIND_OUT_BYTES);
    if (text === null)
      throw new CachegrindError(
        'bad-output',
        `valgrind wrote no readable ${OUT_FILE} (missing, not a regular file, or over ${MAX_CACHEGRIND_OUT_BYTES} bytes)`,
      );
    return { counts: parseCachegrindOut(text), hotspots: parseCachegrindFunctions(text) };
  } finally {
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A regular file's text up to `cap` bytes, or null when it is missing, a link, or larger. */
export async function readCapped(file: string, cap: number): Promise<string | null> {
  const s = await lstat(file).catch(() => null);
  if (!s || !s.isFile() || s.size > cap) return null;
  // The program may have swapped in a link or a FIFO between lstat and open: neither is followed or
  // waited on, and the opened file must be the one lstat saw.
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(file, flags).catch(() => null);
  if (!handle) return null;
  try {
    const after = await handle.stat();
    if (!after.isFile() || after.ino !== s.ino || after.dev !== s.dev) return null;
    const buffer = Buffer.alloc(Math.min(cap, after.size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The CachegrindError for a run that did not end cleanly, or null when it did. */
export function describeFailure(result: SandboxResult, log: string | null): CachegrindError | null {
  const text = log ?? result.stderr;
  if (/Unrecognised instruction|unhandled instruction bytes/.test(text)) {
    const bytes = /unhandled instruction bytes:((?: 0x[0-9A-Fa-f]{2}){1,6})/
      .exec(text)?.[1]
      ?.trim();
    return new CachegrindError(
      'unsupported-instruction',
      `valgrind cannot decode an instruction of the program${bytes ? ` (bytes ${bytes})` : ''}; ` +
        "build it with an -march valgrind can decode (no AVX-512), e.g. the toolchain's " +
        'deterministicFlags such as -march=x86-64-v3',
    );
  }
  if (result.limitExceeded) {
    const what = {
      time: `did not finish within ${(result.wallTimeMs / 1000).toFixed(0)} s under valgrind`,
      memory: 'ran out of memory under valgrind',
      output: 'printed more than the output limit under valgrind',
      'file-size': 'wrote a file larger than the file-size limit under valgrind',
      processes: 'exceeded the process limit under valgrind',
    }[result.limitExceeded];
    return new CachegrindError('limit', `the program ${what}`);
  }
  if (result.signal !== null || result.exitCode !== 0) {
    const how = result.signal
      ? `was killed by ${result.signal}`
      : `exited with code ${result.exitCode}`;
    return new CachegrindError('program-failed', `the program ${how} under valgrind${tail(text)}`);
  }
  return null;
}

/** The last lines of valgrind's log that say something (its "==pid==" banner lines do not). */
function tail(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/^(==|--)\d+(==|--) ?/, '').trim())
    .filter(Boolean)
    .slice(-3);
  return lines.length > 0 ? `: ${lines.join(' | ').slice(-300)}` : '';
}
