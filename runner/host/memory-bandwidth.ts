// The host's sequential read bandwidth (bytes/s), the plausibility check's figure
// (lib/core/stats/plausibility.ts): a program cannot have read its input faster than this. Measured by a
// small C program of ours (memory-bandwidth.c, compiled once into the data dir), once per host and
// boot: the figure is cached in the data dir under the host's fingerprint (CPU model, kernel, boot
// id), so judgings never pay for it after the first.
//
// Measured while a judging holds the host lock (the runner's processor, `perfjudge judge`), so no
// other judging on this host runs meanwhile. Other load can only make the figure lower, which makes
// the check flag less, never more: the safe direction for a flag that accuses someone.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { compiledBinary } from '../sandbox/helper-binary';

const execFileAsync = promisify(execFile);

const SOURCE_PATH = fileURLToPath(new URL('./memory-bandwidth.c', import.meta.url));
const FLAGS = ['-O2', '-Wall', '-std=gnu11'];
/** Far larger than any last-level cache, so the passes read memory, not cache. */
const BUFFER_MIB = 256;
const PASSES = 10;
const MEASURE_TIMEOUT_MS = 60_000;
/** Figures outside this range are a broken measurement, not a host (100 MB/s .. 10 TB/s). */
const PLAUSIBLE_RANGE = { min: 1e8, max: 1e13 };

const hostKeySchema = z.strictObject({
  cpuModel: z.string().max(200),
  kernel: z.string().max(200),
  bootId: z.string().max(100).nullable(),
});
type HostKey = z.infer<typeof hostKeySchema>;

const cachedFigureSchema = z.strictObject({
  host: hostKeySchema,
  bytesPerSecond: z.number().positive(),
  bufferMiB: z.number().int().positive(),
  passes: z.number().int().positive(),
  measuredAt: z.iso.datetime(),
});
type CachedFigure = z.infer<typeof cachedFigureSchema>;

export interface MemoryBandwidthOptions {
  /** Where the reason goes when there is no figure (default: stderr). */
  log?: (line: string) => void;
}

/** Measurements in flight, by data dir: callers at the same time share one. */
const inFlight = new Map<string, Promise<number | null>>();

/**
 * The host's sequential read bandwidth in bytes per second: from the data dir's cache when it was
 * measured on this host since its last boot, else measured now (about a second) and cached. Null
 * when it cannot be measured (no C compiler, not enough memory, …), with the reason logged; the
 * next call tries again (a compiler may have been installed meanwhile).
 */
export function hostMemoryBandwidth(
  dataDir: string,
  options: MemoryBandwidthOptions = {},
): Promise<number | null> {
  const key = path.resolve(dataDir);
  let pending = inFlight.get(key);
  if (!pending) {
    const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    pending = cachedOrMeasured(key, log).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

/** The cache file: one figure, for the host that measured it last. */
export function bandwidthCacheFile(dataDir: string): string {
  return path.join(dataDir, 'host', 'memory-bandwidth.json');
}

async function cachedOrMeasured(
  dataDir: string,
  log: (line: string) => void,
): Promise<number | null> {
  const host = await currentHostKey();
  const file = bandwidthCacheFile(dataDir);
  const cached = await readCachedFigure(file);
  if (cached && sameHost(cached.host, host)) return cached.bytesPerSecond;
  try {
    const binary = await compiledBinary(
      { source: SOURCE_PATH, name: 'memory-bandwidth', flags: FLAGS },
      { cacheDir: path.join(dataDir, 'bin') },
    );
    const bytesPerSecond = await runMeasurement(binary);
    const figure: CachedFigure = {
      host,
      bytesPerSecond,
      bufferMiB: BUFFER_MIB,
      passes: PASSES,
      measuredAt: new Date().toISOString(),
    };
    await writeCachedFigure(file, figure);
    log(
      `memory bandwidth: ${(bytesPerSecond / 1e9).toFixed(1)} GB/s sequential read ` +
        `(best of ${PASSES} passes over ${BUFFER_MIB} MiB), cached for this host until it reboots`,
    );
    return bytesPerSecond;
  } catch (error) {
    log(
      `memory bandwidth: not measured, so no plausibility check on this host: ${(error as Error).message}`,
    );
    return null;
  }
}

/** Runs the measuring program and reads its one line. */
async function runMeasurement(binary: string): Promise<number> {
  let stdout: string;
  try {
    ({ stdout } = await execFileAsync(binary, [String(BUFFER_MIB), String(PASSES)], {
      timeout: MEASURE_TIMEOUT_MS,
      maxBuffer: 64 * 1024,
    }));
  } catch (error) {
    const e = error as Error & { stderr?: string; killed?: boolean };
    throw new Error(
      e.killed
        ? `the measurement took more than ${MEASURE_TIMEOUT_MS / 1000} s`
        : `the measurement failed: ${e.stderr?.trim() || e.message}`,
    );
  }
  return parseBandwidthLine(stdout);
}

/** The figure from the program's line ("bandwidth 23934699357 mib 256 passes 5 checksum …"). */
export function parseBandwidthLine(stdout: string): number {
  const match = /^bandwidth (\d{1,16}) mib \d+ passes \d+ checksum [0-9a-f]{16}$/m.exec(stdout);
  if (!match) throw new Error(`unexpected output from the measurement: ${stdout.slice(0, 200)}`);
  const bytesPerSecond = Number(match[1]);
  if (bytesPerSecond < PLAUSIBLE_RANGE.min || bytesPerSecond > PLAUSIBLE_RANGE.max)
    throw new Error(`the measurement gave ${bytesPerSecond} bytes/s, not a plausible figure`);
  return bytesPerSecond;
}

async function currentHostKey(): Promise<HostKey> {
  const bootId = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (text) => text.trim().slice(0, 100) || null,
    () => null,
  );
  return {
    cpuModel: (os.cpus()[0]?.model.trim() ?? 'unknown').slice(0, 200),
    kernel: os.release().slice(0, 200),
    bootId,
  };
}

function sameHost(a: HostKey, b: HostKey): boolean {
  return a.cpuModel === b.cpuModel && a.kernel === b.kernel && a.bootId === b.bootId;
}

/** The cached figure, or null when there is none or it is not one this module wrote. */
async function readCachedFigure(file: string): Promise<CachedFigure | null> {
  try {
    const text = await readFile(file, 'utf8');
    if (text.length > 10_000) return null;
    const parsed = cachedFigureSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Written under a unique name and renamed, so a runner starting meanwhile never reads half. */
async function writeCachedFigure(file: string, figure: CachedFigure): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, `${JSON.stringify(figure, null, 2)}\n`);
  await rename(temp, file);
}
