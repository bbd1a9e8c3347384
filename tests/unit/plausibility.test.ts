// The plausibility rule's arithmetic (lib/core/stats/plausibility.ts) and the bandwidth program's output
// (runner/host/memory-bandwidth.ts); the judgings that use them: tests/integration/plausibility.test.ts.
import { describe, expect, it } from 'vitest';
import { plausibilitySchema } from '../../contracts';
import { describePlausibility, plausibilityOf } from '../../lib/core/stats/plausibility';
import { parseBandwidthLine } from '../../runner/host/memory-bandwidth';

const MiB = 2 ** 20;

describe('plausibilityOf', () => {
  it('the least time is the input over the bandwidth, in ms', () => {
    // 256 MiB at 20 GB/s: 13.42 ms.
    const p = plausibilityOf({
      inputBytes: 256 * MiB,
      fastestMs: 500,
      bandwidthBytesPerSecond: 2e10,
    })!;
    expect(p.minPlausibleMs).toBeCloseTo(13.4218, 3);
    expect(p).toMatchObject({ inputBytes: 256 * MiB, fastestMs: 500, flagged: false });
    expect(plausibilitySchema.parse(p)).toEqual(p);
  });

  it('flags a run faster than the least time, not one exactly at it or slower', () => {
    const at = (fastestMs: number) =>
      plausibilityOf({ inputBytes: 1e9, fastestMs, bandwidthBytesPerSecond: 1e10 })!.flagged;
    // 1 GB at 10 GB/s: 100 ms.
    expect(at(99.9)).toBe(true);
    expect(at(1)).toBe(true);
    expect(at(100)).toBe(false);
    expect(at(100.1)).toBe(false);
  });

  it('has no figure without a bandwidth: null, never a flag', () => {
    for (const bandwidthBytesPerSecond of [null, 0, -5])
      expect(
        plausibilityOf({ inputBytes: 1e9, fastestMs: 0.1, bandwidthBytesPerSecond }),
      ).toBeNull();
  });

  it('an empty input is never implausible', () => {
    expect(
      plausibilityOf({ inputBytes: 0, fastestMs: 0, bandwidthBytesPerSecond: 1e10 })!.flagged,
    ).toBe(false);
  });
});

describe('describePlausibility', () => {
  it('says the figures, and the flag when there is one', () => {
    const flagged = plausibilityOf({
      inputBytes: 256 * MiB,
      fastestMs: 2.5,
      bandwidthBytesPerSecond: 2.4e10,
    })!;
    expect(describePlausibility(flagged)).toBe(
      'implausibly fast: fastest solution run 2.5 ms, least time to read its 256.0 MiB input 11.2 ms ' +
        "at this host's 24.0 GB/s memory bandwidth. A program this fast cannot have read its input; " +
        'check the patch (does it read the input at all?)',
    );
    const fine = plausibilityOf({
      inputBytes: 4 * MiB,
      fastestMs: 130,
      bandwidthBytesPerSecond: 2.4e10,
    })!;
    expect(describePlausibility(fine)).toBe(
      "plausible: fastest solution run 130 ms, least time to read its 4.0 MiB input 0.175 ms at this host's 24.0 GB/s memory bandwidth",
    );
  });
});

describe('parseBandwidthLine', () => {
  it('reads the figure of the measuring program', () => {
    expect(
      parseBandwidthLine('bandwidth 23934699357 mib 256 passes 5 checksum c141bcc620000000\n'),
    ).toBe(23934699357);
  });

  it('refuses anything else, and figures no memory has', () => {
    expect(() => parseBandwidthLine('')).toThrow(/unexpected output/);
    expect(() => parseBandwidthLine('bandwidth fast')).toThrow(/unexpected output/);
    expect(() =>
      parseBandwidthLine('bandwidth 12 mib 256 passes 5 checksum c141bcc620000000'),
    ).toThrow(/not a plausible figure/);
    expect(() =>
      parseBandwidthLine('bandwidth 99999999999999999 mib 256 passes 5 checksum c141bcc620000000'),
    ).toThrow(/unexpected output|not a plausible figure/);
  });
});
