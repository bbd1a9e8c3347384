// A small seeded pseudo-random generator, so every bootstrap and simulation is reproducible.

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal. */
  normal(): number;
}

/** 32-bit avalanche step of splitmix32: spreads a small or sequential seed over all four state words. */
function splitmix32(state: number): [number, number] {
  const s = (state + 0x9e3779b9) | 0;
  let z = s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [s, (z ^ (z >>> 16)) >>> 0];
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): passes PractRand far beyond what a
 * bootstrap needs, and unlike Math.random it can be seeded.
 */
export function createRng(seed: number): Rng {
  if (!Number.isFinite(seed)) throw new Error(`rng seed must be a finite number, got ${seed}`);
  let sm = Math.trunc(seed) | 0;
  const words: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [next, out] = splitmix32(sm);
    sm = next;
    words.push(out);
  }
  let [a, b, c, d] = words as [number, number, number, number];
  const nextU32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) nextU32();
  // Box–Muller yields two normals per draw; keep the second rather than waste it.
  let spare: number | null = null;
  const next = (): number => nextU32() / 4294967296;
  return {
    next,
    int: (n) => Math.floor(next() * n),
    normal: () => {
      if (spare !== null) {
        const s = spare;
        spare = null;
        return s;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
  };
}
