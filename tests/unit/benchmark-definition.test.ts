// One benchmark definition per leaderboard: stored once in the database (the first writer's
// proposal fills what is unset), resolved from there alone, a process's other wishes named, and a
// result timed on another size or seed recognised as such.
import { describe, expect, it } from 'vitest';
import {
  benchmarkMismatch,
  definitionDisagreements,
  describeDefinition,
  firstDefinition,
  resolveBenchmark,
  seedFingerprint,
  timedInput,
  type StoredBenchmark,
} from '../../lib/core/challenge/benchmark-definition';

const manifest = { size: 256 << 20, seedEnv: 'PERFJUDGE_WORDCOUNT_SEED' };
const NEVER_WRITTEN: StoredBenchmark = {
  benchmarkBytes: null,
  benchmarkSeed: null,
  benchmarkDevelopment: false,
  benchmarkMaxPairs: null,
  benchmarkGenerator: null,
  benchmarkRevision: 0,
};

describe('resolveBenchmark', () => {
  it("is the manifest's size and no seed while nothing was written", () => {
    expect(resolveBenchmark(manifest, NEVER_WRITTEN)).toEqual({
      sizeBytes: 256 << 20,
      development: false,
      revision: 0,
    });
  });

  it('is exactly what is stored, whatever the process’s environment', () => {
    const stored = firstDefinition(manifest, NEVER_WRITTEN, {
      sizeBytes: 8 << 20,
      seed: 'start-seed-123',
      maxPairs: 3,
      generatorVersion: 2,
    });
    expect(resolveBenchmark(manifest, stored)).toEqual({
      sizeBytes: 8 << 20,
      seed: 'start-seed-123',
      development: true,
      maxPairs: 3,
      generatorVersion: 2,
      revision: 1,
    });
  });
});

describe('firstDefinition', () => {
  it('keeps what an organizer set before, fills the rest from the proposal', () => {
    const stored = firstDefinition(
      manifest,
      { ...NEVER_WRITTEN, benchmarkBytes: 256 << 20, benchmarkSeed: 'organizer-seed-1' },
      { sizeBytes: 8 << 20, seed: 'start-seed-123' },
    );
    expect(stored).toMatchObject({
      benchmarkBytes: 256 << 20,
      benchmarkSeed: 'organizer-seed-1',
      benchmarkDevelopment: false,
      benchmarkRevision: 1,
    });
  });

  it('labels a smaller size, or a pair budget, development; the manifest’s size is official', () => {
    expect(firstDefinition(manifest, NEVER_WRITTEN, {}).benchmarkDevelopment).toBe(false);
    expect(firstDefinition(manifest, NEVER_WRITTEN, { maxPairs: 2 }).benchmarkDevelopment).toBe(
      true,
    );
    expect(
      firstDefinition(manifest, NEVER_WRITTEN, { sizeBytes: 1 << 20 }).benchmarkDevelopment,
    ).toBe(true);
  });
});

describe('definitionDisagreements', () => {
  const current = resolveBenchmark(
    manifest,
    firstDefinition(manifest, NEVER_WRITTEN, { sizeBytes: 8 << 20, seed: 'start-seed-123' }),
  );

  it('names each difference, never a seed’s value', () => {
    const said = definitionDisagreements(current, {
      sizeBytes: 256 << 20,
      seed: 'another-seed-456',
      maxPairs: 5,
    });
    expect(said).toEqual([
      'input size 256MiB here, 8MiB in the database',
      `seed ${seedFingerprint('another-seed-456').slice(0, 8)}… here, ${seedFingerprint('start-seed-123').slice(0, 8)}… in the database`,
      "at most 5 timed pairs here, the manifest's run policy in the database",
    ]);
    expect(said.join()).not.toContain('another-seed-456');
  });

  it('is empty when the environment agrees or says nothing', () => {
    expect(definitionDisagreements(current, {})).toEqual([]);
    expect(
      definitionDisagreements(current, { sizeBytes: 8 << 20, seed: 'start-seed-123' }),
    ).toEqual([]);
  });

  it('describes the definition a leaderboard ranks in one line', () => {
    expect(describeDefinition(current)).toBe(
      `revision 1: 8MiB, seed ${seedFingerprint('start-seed-123').slice(0, 8)}… (development)`,
    );
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
