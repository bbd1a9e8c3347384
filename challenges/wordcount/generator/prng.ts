// Integer-only randomness for the input generator: the same seed gives the same bytes on every
// OS, CPU and Node version, so nothing here may use Math.random, Math.log/pow or locale-aware code.

/** FNV-1a (32-bit) over the UTF-8 bytes of `text`: a fixed, documented way to turn a seed into bits. */
export function fnv1a32(text: string): number {
  const bytes = new TextEncoder().encode(text);
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

/** A 32-bit avalanche mix (the "lowbias32" finalizer): used to derive per-word bits from a rank. */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x21f0aaad);
  x ^= x >>> 15;
  x = Math.imul(x, 0x735a2d97);
  x ^= x >>> 15;
  return x >>> 0;
}

/** splitmix32 step: expands one 32-bit key into a stream of well-mixed state words. */
function splitmix32(state: { value: number }): number {
  state.value = (state.value + 0x9e3779b9) | 0;
  let z = state.value;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** 2^-32, exactly representable: multiplying by it is an exact (and fast) division by 2^32. */
export const TWO_POW_MINUS_32 = 1 / 4294967296;

/** xoshiro128** (Blackman & Vigna): small, fast and good enough for synthetic text. */
export class Xoshiro128 {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(key: number) {
    const state = { value: key | 0 };
    this.s0 = splitmix32(state) | 0;
    this.s1 = splitmix32(state) | 0;
    this.s2 = splitmix32(state) | 0;
    this.s3 = splitmix32(state) | 0;
    // The all-zero state is the one fixed point of xoshiro; splitmix makes it vanishingly unlikely.
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** A generator with an explicit state (for known-answer tests against the reference code). */
  static fromState(state: readonly [number, number, number, number]): Xoshiro128 {
    const rng = new Xoshiro128(0);
    [rng.s0, rng.s1, rng.s2, rng.s3] = state.map((word) => word | 0) as [
      number,
      number,
      number,
      number,
    ];
    return rng;
  }

  /** A uniform unsigned 32-bit integer. */
  next(): number {
    const s1 = this.s1;
    const x = Math.imul(s1, 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= s1;
    this.s1 = s1 ^ this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = (this.s3 << 11) | (this.s3 >>> 21);
    return result;
  }

  /**
   * A uniform integer in [0, n) for 1 <= n <= 2^21. The product of a 32-bit value and n stays
   * below 2^53 and scaling by 2^-32 is exact, so the result is identical everywhere.
   */
  below(n: number): number {
    return (this.next() * n * TWO_POW_MINUS_32) | 0;
  }

  /** True with probability `perMille`/1000 (integer comparison, no floating-point rounding). */
  chance(perMille: number): boolean {
    return this.below(1000) < perMille;
  }
}
