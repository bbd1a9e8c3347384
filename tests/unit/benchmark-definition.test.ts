// One benchmark definition per leaderboard: the platform resolves it (organizer's settings, then
// the development size, then the manifest; the seed from the organizer, else the platform's
// variable), and a result timed on another size or seed is recognised as such.
import { describe, expect, it } from 'vitest';
import {
  benchmarkMismatch,
  resolveBenchmark,
  seedFingerprint,
  timedInput,
} from '../../lib/challenge/benchmark-definition';

const manifest = { size: 256 << 20, seedEnv: 'PERFJUDGE_WORDCOUNT_SEED' };
const platformSeed = (name: string) =>
  name === 'PERFJUDGE_WORDCOUNT_SEED' ? 'platform-seed-123' : undefined;

describe('resolveBenchmark', () => {
  it("takes the manifest's size and the platform's seed when nothing else is set", () => {
    expect(resolveBenchmark(manifest, undefined, { secret: platformSeed })).toEqual({
      sizeBytes: 256 << 20,
      seed: 'platform-seed-123',
      development: false,
    });
  });

  it('labels a development size smaller than the manifest’s, never the organizer’s own', () => {
    const dev = resolveBenchmark(manifest, undefined, { sizeBytes: 8 << 20, secret: platformSeed });
    expect(dev).toMatchObject({ sizeBytes: 8 << 20, development: true });
    const organizer = resolveBenchmark(
      manifest,
      { benchmarkBytes: 16 << 20, benchmarkSeed: 'organizer-seed-1' },
      { sizeBytes: 8 << 20, secret: platformSeed },
    );
    expect(organizer).toEqual({
      sizeBytes: 16 << 20,
      seed: 'organizer-seed-1',
      development: false,
    });
  });

  it('carries no seed when the platform knows none', () => {
    expect(resolveBenchmark(manifest, undefined, { secret: () => undefined })).toEqual({
      sizeBytes: 256 << 20,
      development: false,
    });
  });
});

describe('benchmarkMismatch', () => {
  const current = { sizeBytes: 8 << 20, seed: 'platform-seed-123', development: true };

  it('accepts a result timed on the current definition, and one of an older runner', () => {
    expect(benchmarkMismatch(timedInput(current, current.seed), current)).toBeNull();
    expect(benchmarkMismatch(undefined, current)).toBeNull();
  });

  it('refuses another size or another seed, naming both inputs', () => {
    const otherSize = benchmarkMismatch(
      timedInput({ sizeBytes: 32 << 20, development: true }, current.seed),
      current,
    );
    expect(otherSize).toMatch(/32MiB.*8MiB/);
    const otherSeed = benchmarkMismatch(timedInput(current, 'a-runner-seed'), current);
    expect(otherSeed).toContain(seedFingerprint('a-runner-seed').slice(0, 8));
    expect(otherSeed).not.toContain('a-runner-seed');
    // A local stand-in seed is another input too.
    expect(benchmarkMismatch(timedInput(current, null), current)).toMatch(/local seed/);
  });

  it('compares sizes only when the platform knows no seed (the runners’ variable decides)', () => {
    const noSeed = { sizeBytes: 8 << 20, development: true };
    expect(benchmarkMismatch(timedInput(noSeed, 'any-runner-seed'), noSeed)).toBeNull();
  });
});
