// The maxsubarray input generator: lines of integers in [-10^9, 10^9], deterministic from a seed
// (xoshiro128** seeded by the seed's SHA-256), streamed in chunks; at most `sizeBytes` bytes, whole
// lines only. Used by `perfjudge gen` and the judge.
import { createHash } from 'node:crypto';

/** Bump (with the manifest's `version`) whenever the bytes for a (seed, size) change. */
export const MAXSUBARRAY_GENERATOR_VERSION = 1;

const MAX_ABS_VALUE = 1_000_000_000;
const SPAN = 2 * MAX_ABS_VALUE + 1;
/** The largest multiple of SPAN below 2^32: draws above it are redrawn, so no value is favoured. */
const UNBIASED_LIMIT = Math.floor(2 ** 32 / SPAN) * SPAN;
const CHUNK_BYTES = 64 * 1024;
/** "-1000000000\n" */
const LONGEST_LINE = 12;

export interface MaxSubarrayInputOptions {
  sizeBytes: number;
  seed: string;
}

/** xoshiro128**: small, fast and the same in every JavaScript engine (32-bit integer arithmetic). */
class Xoshiro128 {
  private readonly s: Uint32Array;
  constructor(seed: string) {
    const digest = createHash('sha256').update(seed, 'utf8').digest();
    this.s = new Uint32Array([0, 4, 8, 12].map((i) => digest.readUInt32LE(i)));
    if (this.s.every((word) => word === 0)) this.s[0] = 1;
  }
  next(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = s[1]! << 9;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

function nextValue(rng: Xoshiro128): number {
  for (;;) {
    const draw = rng.next();
    if (draw < UNBIASED_LIMIT) return (draw % SPAN) - MAX_ABS_VALUE;
  }
}

export function* maxSubarrayInputChunks(options: MaxSubarrayInputOptions): Generator<Uint8Array> {
  if (!Number.isSafeInteger(options.sizeBytes) || options.sizeBytes < 0)
    throw new RangeError(`sizeBytes must be a non-negative integer, got ${options.sizeBytes}`);
  const rng = new Xoshiro128(options.seed);
  let left = options.sizeBytes;
  let chunk = '';
  while (left >= LONGEST_LINE) {
    const line = `${nextValue(rng)}\n`;
    chunk += line;
    left -= line.length;
    if (chunk.length >= CHUNK_BYTES) {
      yield Buffer.from(chunk, 'latin1');
      chunk = '';
    }
  }
  // The tail: values short enough to fit, so the input ends on a whole line.
  while (left >= 2) {
    const line = `${nextValue(rng) % 10 ** (left - 1)}\n`;
    if (line.length > left) continue;
    chunk += line;
    left -= line.length;
  }
  if (chunk.length > 0) yield Buffer.from(chunk, 'latin1');
}
