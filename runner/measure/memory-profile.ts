// Memory over time for one extra, untimed run: our sampler (memory-sampler.c) runs the program inside
// the sandbox and records RSS, virtual size, anonymous RSS and transparent huge pages every few ms.
//
// The samples file is written inside the run's directory, by a process that shares the untrusted
// program's uid: the program could overwrite, truncate, replace or pad it. So it is read without
// following links, capped and parsed strictly, and the series is informational only: it is never
// used for a verdict or the speedup (those come from the sandbox's own measurements, from outside).
import { constants } from 'node:fs';
import { lstat, mkdtemp, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  memoryProfileSchema,
  type Limits,
  type MemoryPoint,
  type MemoryProfile,
} from '../../contracts';
import { SANDBOX_INPUT, SANDBOX_PROGRAM } from '../sandbox/run-program';
import { compiledBinary } from '../sandbox/helper-binary';
import type { Sandbox, SandboxResult } from '../sandbox/sandbox';

/** The chart never gets more points than this (the contract's limit). */
export const MAX_MEMORY_POINTS = 500;
/** Where the sampler appears inside the sandbox (read-only, beside the program). */
const SANDBOX_SAMPLER = '/judge/memory-sampler';
/** The samples file, in the run's fresh directory. */
const SAMPLES_FILE = '.memory-samples.txt';
/**
 * About 30 bytes a sample: 16 MiB holds ~9 minutes at 1 ms, far beyond any run limit. A bigger file
 * was padded by the program; its first 16 MiB are still read.
 */
const MAX_SAMPLES_FILE_BYTES = 16 << 20;

const SOURCE_PATH = fileURLToPath(new URL('./memory-sampler.c', import.meta.url));
const FLAGS = ['-O2', '-Wall', '-std=gnu11', '-pthread'];

export type ThpSource = 'rollup' | 'smaps' | 'none';

export interface SamplerBinaryOptions {
  /** Default `<repo>/.data/bin`, beside the sandbox helper (readable by the sandbox user). */
  cacheDir?: string;
  /** A static binary runs in any container image (Docker); the host one links against our libc. */
  static?: boolean;
}

/** The compiled sampler, built once per source hash and flags (see compiledBinary). */
function memorySamplerBinary(options: SamplerBinaryOptions = {}): Promise<string> {
  return compiledBinary({ source: SOURCE_PATH, name: 'memory-sampler', flags: FLAGS }, options);
}

export interface SamplerOutput {
  /** Samples in time order, sizes in bytes. */
  samples: MemoryPoint[];
  /** From the header line; null when it is missing or unreadable. */
  intervalUs: number | null;
  thpSource: ThpSource | null;
  /** The final line: when the program ended and how; null when the sampler never finished. */
  end: { tMs: number; exitCode: number | null; signal: number | null; thpReads: number } | null;
  /** Lines that were not well-formed, out of time order, or after the final line. */
  ignoredLines: number;
}

const NUM_MS = String.raw`(\d{1,10}(?:\.\d{1,6})?)`;
// Up to 12 digits of KiB (~1 PiB): bytes stay exact doubles.
const KIB = String.raw`(\d{1,12})`;
const HEADER_RE = /^# memory-sampler 1 interval_us=(\d{1,7}) thp=(rollup|smaps|none)$/;
const SAMPLE_RE = new RegExp(`^${NUM_MS} ${KIB} ${KIB} ${KIB} ${KIB}$`);
const END_RE = new RegExp(`^end ${NUM_MS} ([xs])(\\d{1,3}) (\\d{1,12})$`);

/**
 * Parses the sampler's file. Anything unexpected is counted and skipped, never thrown: the file may
 * have been tampered with by the program it describes.
 */
export function parseSamplerOutput(text: string): SamplerOutput {
  const out: SamplerOutput = {
    samples: [],
    intervalUs: null,
    thpSource: null,
    end: null,
    ignoredLines: 0,
  };
  const lines = text.split('\n');
  // The last piece has no newline: a line cut short when the sampler was killed mid-write.
  const tail = lines.pop();
  if (tail) out.ignoredLines++;
  let lastT = 0;
  lines.forEach((line, index) => {
    if (out.end) {
      out.ignoredLines++;
      return;
    }
    const header = index === 0 ? HEADER_RE.exec(line) : null;
    if (header) {
      out.intervalUs = Number(header[1]);
      out.thpSource = header[2] as ThpSource;
      return;
    }
    const s = SAMPLE_RE.exec(line);
    if (s) {
      const tMs = Number(s[1]);
      if (tMs < lastT) {
        out.ignoredLines++;
        return;
      }
      lastT = tMs;
      out.samples.push({
        tMs,
        rssBytes: Number(s[2]) * 1024,
        vmBytes: Number(s[3]) * 1024,
        anonBytes: Number(s[4]) * 1024,
        thpBytes: Number(s[5]) * 1024,
      });
      return;
    }
    const e = END_RE.exec(line);
    if (e && Number(e[1]) >= lastT) {
      const code = Number(e[3]);
      out.end = {
        tMs: Number(e[1]),
        exitCode: e[2] === 'x' ? code : null,
        signal: e[2] === 's' ? code : null,
        thpReads: Number(e[4]),
      };
      return;
    }
    if (line !== '') out.ignoredLines++;
  });
  return out;
}

/**
 * At most `max` points in time order, by equal-count buckets of consecutive samples. Each bucket
 * gives one point holding the largest value of every series within it, at the time of its largest
 * RSS. Plain decimation (every k-th sample) would drop short spikes: a 5 ms peak among 20,000
 * samples would vanish from the chart although the peaks report it. Bucket maxima keep every
 * series' peak exactly, so the chart's highest point is the reported peak; the cost is that troughs
 * narrower than a bucket are filled in (the chart is an upper envelope), which is the right bias
 * for a memory limit.
 */
export function downsample(points: readonly MemoryPoint[], max: number): MemoryPoint[] {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be a positive integer`);
  if (points.length <= max) return points.map((p) => ({ ...p }));
  const result: MemoryPoint[] = [];
  for (let b = 0; b < max; b++) {
    const from = Math.floor((b * points.length) / max);
    const to = Math.floor(((b + 1) * points.length) / max);
    let top = points[from]!;
    let vm = 0;
    let anon = 0;
    let thp = 0;
    for (let i = from; i < to; i++) {
      const p = points[i]!;
      if (p.rssBytes > top.rssBytes) top = p;
      vm = Math.max(vm, p.vmBytes);
      anon = Math.max(anon, p.anonBytes);
      thp = Math.max(thp, p.thpBytes);
    }
    result.push({
      tMs: top.tMs,
      rssBytes: top.rssBytes,
      vmBytes: vm,
      anonBytes: anon,
      thpBytes: thp,
    });
  }
  return result;
}

export interface SamplingStats {
  /** Mean time between consecutive samples; null with fewer than two. */
  meanIntervalMs: number | null;
  /** Longest time between consecutive samples (the sampler was descheduled). */
  maxGapMs: number | null;
  thpSource: ThpSource | null;
  /** How many times the THP figure was read (samples carry the latest one: see memory-sampler.c). */
  thpReads: number | null;
}

/** The contract's profile from parsed samples: peaks over all of them, at most 500 chart points. */
export function buildMemoryProfile(
  parsed: SamplerOutput,
  intervalMs: number,
): { profile: MemoryProfile; sampling: SamplingStats } {
  const { samples } = parsed;
  const peaks = { rssBytes: 0, vmBytes: 0, anonBytes: 0, thpBytes: 0 };
  let maxGap: number | null = null;
  samples.forEach((p, i) => {
    peaks.rssBytes = Math.max(peaks.rssBytes, p.rssBytes);
    peaks.vmBytes = Math.max(peaks.vmBytes, p.vmBytes);
    peaks.anonBytes = Math.max(peaks.anonBytes, p.anonBytes);
    peaks.thpBytes = Math.max(peaks.thpBytes, p.thpBytes);
    if (i > 0) maxGap = Math.max(maxGap ?? 0, p.tMs - samples[i - 1]!.tMs);
  });
  const first = samples[0];
  const last = samples.at(-1);
  const durationMs = Math.max(parsed.end?.tMs ?? 0, last?.tMs ?? 0);
  const profile = memoryProfileSchema.parse({
    intervalMs,
    durationMs,
    samples: samples.length,
    points: downsample(samples, MAX_MEMORY_POINTS),
    peaks,
  });
  return {
    profile,
    sampling: {
      meanIntervalMs:
        first && last && samples.length > 1 ? (last.tMs - first.tMs) / (samples.length - 1) : null,
      maxGapMs: maxGap,
      thpSource: parsed.thpSource,
      thpReads: parsed.end?.thpReads ?? null,
    },
  };
}

/**
 * The file's first `cap` bytes, or null when it is missing or not a regular file. lstat first and
 * O_NOFOLLOW: a link planted by the program never leads us anywhere; O_NONBLOCK: nor does a FIFO.
 */
async function readUntrusted(
  file: string,
  cap: number,
): Promise<{ text: string; truncated: boolean } | null> {
  let before;
  try {
    before = await lstat(file);
  } catch {
    return null;
  }
  if (!before.isFile()) return null;
  const handle = await open(
    file,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  ).catch(() => null);
  if (!handle) return null;
  try {
    const s = await handle.stat();
    if (!s.isFile() || s.ino !== before.ino || s.dev !== before.dev) return null;
    const buffer = Buffer.alloc(Math.min(s.size, cap));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, bytesRead).toString('latin1'), truncated: s.size > cap };
  } finally {
    await handle.close();
  }
}

export interface ProfileMemoryOptions {
  sandbox: Sandbox;
  /** The built program (host path), mounted read-only at /judge/program. */
  binary: string;
  /** Where the sandbox shows the program (default /judge/program; see profiledProgramPath). */
  programInside?: string;
  /** Its input (host path), mounted read-only at /judge/input.txt. */
  input: string;
  /** Parent for the run's fresh directory. */
  workDir: string;
  limits: Limits;
  /** Sampling interval, 0.1 to 10 ms (default 5). */
  intervalMs?: number;
  /** Wall-time limit of the run (default: the benchmark run limit). */
  wallTimeMs?: number;
  /** Pin the run to this CPU: the sampler then shares it with the program (see the report). */
  cpu?: number;
  signal?: AbortSignal;
  /** Where the sampler is built (default `<repo>/.data/bin`). */
  samplerCacheDir?: string;
  /** Force the huge-page source (tests exercise the fallback for kernels without smaps_rollup). */
  thpFrom?: ThpSource;
}

export interface MemoryProfileRun {
  profile: MemoryProfile;
  /** The sandbox's account of the run (the sampler mirrors the program's exit status or signal). */
  run: SandboxResult;
  sampling: SamplingStats;
  /** What limited the profile, for ProfileStage.notes. */
  notes: string[];
}

/** One untimed run of `binary` on `input` with its memory sampled every `intervalMs`. */
export async function profileMemory(options: ProfileMemoryOptions): Promise<MemoryProfileRun> {
  const intervalMs = options.intervalMs ?? 5;
  if (!(intervalMs >= 0.1 && intervalMs <= 10)) {
    throw new RangeError(`intervalMs must be between 0.1 and 10 (got ${intervalMs})`);
  }
  const sampler = await memorySamplerBinary({
    cacheDir: options.samplerCacheDir,
    static: options.sandbox.kind === 'docker',
  });
  const runDir = await mkdtemp(path.join(options.workDir, 'memory-'));
  const samplesFile = path.join(runDir, SAMPLES_FILE);
  const { limits } = options;
  const program = options.programInside ?? SANDBOX_PROGRAM;
  try {
    const run = await options.sandbox.run({
      command: SANDBOX_SAMPLER,
      args: [
        ...(options.thpFrom ? ['--thp-from', options.thpFrom] : []),
        String(Math.round(intervalMs * 1000)),
        samplesFile,
        '--',
        program,
        SANDBOX_INPUT,
      ],
      workDir: runDir,
      readOnly: [
        { host: sampler, sandbox: SANDBOX_SAMPLER },
        { host: options.binary, sandbox: program },
        { host: options.input, sandbox: SANDBOX_INPUT },
      ],
      env: { PATH: '/usr/bin:/bin', HOME: runDir, LC_ALL: 'C' },
      stdout: 'hash',
      cpu: options.cpu,
      allowSyscalls: limits.allowSyscalls,
      limits: {
        wallTimeMs: options.wallTimeMs ?? limits.benchmarkRunSeconds * 1000,
        memoryBytes: limits.memory,
        // The sampler and its huge-page reader thread are two more tasks; the program keeps its full
        // allowance.
        processes: limits.processes + 2,
        outputBytes: limits.outputBytes,
        fileBytes: limits.fileBytes,
      },
      signal: options.signal,
    });
    const file = await readUntrusted(samplesFile, MAX_SAMPLES_FILE_BYTES);
    const parsed = parseSamplerOutput(file?.text ?? '');
    const { profile, sampling } = buildMemoryProfile(parsed, intervalMs);
    return {
      profile,
      run,
      sampling,
      notes: notesFor(parsed, profile, sampling, run, file, intervalMs),
    };
  } finally {
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function notesFor(
  parsed: SamplerOutput,
  profile: MemoryProfile,
  sampling: SamplingStats,
  run: SandboxResult,
  file: { truncated: boolean } | null,
  intervalMs: number,
): string[] {
  const notes: string[] = [];
  if (!file) notes.push('memory profile: the sampler left no samples file');
  else if (file.truncated)
    notes.push('memory profile: the samples file was oversized; only its beginning was read');
  if (run.limitExceeded)
    notes.push(`memory profile: the run stopped at the ${run.limitExceeded} limit`);
  if (file && !parsed.end)
    notes.push('memory profile: the sampler did not finish; the series ends early');
  if (parsed.ignoredLines > 0)
    notes.push(`memory profile: ${parsed.ignoredLines} malformed sample lines were ignored`);
  if (parsed.thpSource === 'none')
    notes.push('memory profile: transparent huge pages could not be read (reported as 0)');
  if (parsed.thpSource === 'smaps')
    notes.push('memory profile: huge pages summed from /proc/PID/smaps (no smaps_rollup here)');
  const { thpReads } = sampling;
  // Only worth a note when the huge-page line is visibly coarser than the others.
  const thpEveryMs = thpReads ? profile.durationMs / thpReads : 0;
  if (parsed.thpSource !== 'none' && thpReads === 0 && profile.durationMs > 50) {
    notes.push('memory profile: huge pages were never read successfully (reported as 0)');
  }
  if (parsed.thpSource !== 'none' && thpReads && thpEveryMs > 50) {
    notes.push(
      `memory profile: huge pages read ${thpReads} times (every ${thpEveryMs.toFixed(0)} ms): ` +
        `reading them walks the page tables, so it is paced to ~5% of a CPU; samples carry the ` +
        `latest value`,
    );
  }
  if (sampling.meanIntervalMs !== null && sampling.meanIntervalMs > 2 * intervalMs) {
    notes.push(
      `memory profile: sampled every ${sampling.meanIntervalMs.toFixed(1)} ms on average ` +
        `(asked ${intervalMs} ms): the host was busy`,
    );
  }
  return notes;
}
