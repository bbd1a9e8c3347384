import { describe, expect, it } from 'vitest';
import { memoryProfileSchema, type MemoryPoint } from '../../contracts';
import {
  MAX_MEMORY_POINTS,
  buildMemoryProfile,
  downsample,
  parseSamplerOutput,
} from '../../runner/measure/memory-profile';

// Recorded from memory-sampler on this VM (a program that touches 50 MiB, then frees it), shortened.
const RECORDED = `# memory-sampler 1 interval_us=5000 thp=rollup
0.412 1404 5656 120 0
5.470 3228 57080 1216 0
10.531 28812 57080 26800 26624
15.588 53748 57080 51392 51200
20.602 2548 5656 192 0
end 24.117 x0 5
`;

function point(tMs: number, rssMiB: number, extra: Partial<MemoryPoint> = {}): MemoryPoint {
  const rssBytes = rssMiB * 1024 * 1024;
  return { tMs, rssBytes, vmBytes: rssBytes * 2, anonBytes: rssBytes / 2, thpBytes: 0, ...extra };
}

function peaksOf(points: MemoryPoint[]) {
  return {
    rssBytes: Math.max(...points.map((p) => p.rssBytes)),
    vmBytes: Math.max(...points.map((p) => p.vmBytes)),
    anonBytes: Math.max(...points.map((p) => p.anonBytes)),
    thpBytes: Math.max(...points.map((p) => p.thpBytes)),
  };
}

describe('parseSamplerOutput', () => {
  it('reads the header, the samples in bytes and the final line', () => {
    const out = parseSamplerOutput(RECORDED);
    expect(out.intervalUs).toBe(5000);
    expect(out.thpSource).toBe('rollup');
    expect(out.samples).toHaveLength(5);
    expect(out.samples[3]).toEqual({
      tMs: 15.588,
      rssBytes: 53748 * 1024,
      vmBytes: 57080 * 1024,
      anonBytes: 51392 * 1024,
      thpBytes: 51200 * 1024,
    });
    expect(out.end).toEqual({ tMs: 24.117, exitCode: 0, signal: null, thpReads: 5 });
    expect(out.ignoredLines).toBe(0);
  });

  it('reads a death by signal', () => {
    const out = parseSamplerOutput('# memory-sampler 1 interval_us=1000 thp=none\nend 1.5 s11 0\n');
    expect(out.thpSource).toBe('none');
    expect(out.samples).toEqual([]);
    expect(out.end).toEqual({ tMs: 1.5, exitCode: null, signal: 11, thpReads: 0 });
  });

  it('returns nothing for empty input', () => {
    expect(parseSamplerOutput('')).toEqual({
      samples: [],
      intervalUs: null,
      thpSource: null,
      end: null,
      ignoredLines: 0,
    });
  });

  it('ignores garbage, out-of-order samples, a cut-off last line and anything after the end', () => {
    const text = [
      '# memory-sampler 1 interval_us=5000 thp=rollup',
      '1.000 100 200 50 0',
      'garbage',
      '2.000 100 200 50', // a field short
      '3.000 -1 200 50 0', // negative
      '4.000 1e9 200 50 0', // not plain digits
      '5.000 9999999999999 200 50 0', // more KiB than any machine has
      '6.000 100 200 50 0 7', // a field too many
      '7.000 150 200 50 0',
      '0.500 999999 999999 999999 0', // back in time: written by someone else
      '# memory-sampler 1 interval_us=1 thp=none', // a second header
      '\u0000\u0000\u0000',
      '8.000  150 200 50 0', // two spaces
      '9.000 160 200 50 0',
      'end 10.000 x0 3',
      '11.000 999999 999999 999999 999999',
      'end 12.000 x1 3',
      '12.000 170 200 50 0', // no newline: cut off mid-write
    ].join('\n');
    const out = parseSamplerOutput(text);
    expect(out.samples.map((s) => s.tMs)).toEqual([1, 7, 9]);
    expect(out.samples.map((s) => s.rssBytes)).toEqual([100 * 1024, 150 * 1024, 160 * 1024]);
    expect(out.end?.tMs).toBe(10);
    expect(out.end?.exitCode).toBe(0);
    expect(out.ignoredLines).toBe(13);
  });

  it('keeps the header only as the first line', () => {
    const out = parseSamplerOutput('1.0 1 1 1 1\n# memory-sampler 1 interval_us=5000 thp=rollup\n');
    expect(out.thpSource).toBeNull();
    expect(out.samples).toHaveLength(1);
    expect(out.ignoredLines).toBe(1);
  });

  it('never throws on arbitrary bytes', () => {
    let seed = 12345;
    const byte = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % 256;
    };
    for (let round = 0; round < 50; round++) {
      const bytes = Buffer.from(Array.from({ length: 2000 }, byte));
      const out = parseSamplerOutput(`${RECORDED}${bytes.toString('latin1')}`);
      expect(out.samples.length).toBe(5);
    }
  });
});

describe('downsample', () => {
  it('returns short series unchanged (as copies)', () => {
    const points = [point(0, 1), point(5, 2), point(10, 3)];
    const out = downsample(points, 500);
    expect(out).toEqual(points);
    expect(out[0]).not.toBe(points[0]);
    expect(downsample([], 500)).toEqual([]);
  });

  it('keeps at most max points, in time order', () => {
    const points = Array.from({ length: 12_345 }, (_, i) => point(i * 5, 100 + Math.sin(i) * 50));
    for (const max of [1, 2, 7, 499, 500]) {
      const out = downsample(points, max);
      expect(out).toHaveLength(max);
      for (let i = 1; i < out.length; i++) expect(out[i]!.tMs).toBeGreaterThan(out[i - 1]!.tMs);
    }
  });

  it('keeps a one-sample spike that decimation would drop', () => {
    const points = Array.from({ length: 20_000 }, (_, i) => point(i * 5, 100));
    points[12_347] = point(12_347 * 5, 900, { thpBytes: 2 << 20 });
    points[3_001] = point(3_001 * 5, 100, { vmBytes: 5 << 30 });
    const out = downsample(points, MAX_MEMORY_POINTS);
    expect(out).toHaveLength(MAX_MEMORY_POINTS);
    expect(peaksOf(out)).toEqual(peaksOf(points));
    // The RSS peak stays at its own time.
    const top = out.find((p) => p.rssBytes === 900 * 1024 * 1024);
    expect(top?.tMs).toBe(12_347 * 5);
    // Every-40th decimation would have missed it.
    expect(points.filter((_, i) => i % 40 === 0).some((p) => p.rssBytes > 100 << 20)).toBe(false);
  });

  it('keeps the shape of a rise and fall', () => {
    const n = 3000;
    const points = Array.from({ length: n }, (_, i) =>
      point(i, i < n / 2 ? (i / n) * 1000 : ((n - i) / n) * 1000),
    );
    const out = downsample(points, 100);
    const peakAt = out.findIndex((p) => p.rssBytes === peaksOf(out).rssBytes);
    expect(peakAt).toBeGreaterThan(40);
    expect(peakAt).toBeLessThan(60);
    expect(out[0]!.rssBytes).toBeLessThan(out[peakAt]!.rssBytes / 10);
    expect(out.at(-1)!.rssBytes).toBeLessThan(out[peakAt]!.rssBytes / 10);
  });

  it('rejects a bad maximum', () => {
    expect(() => downsample([point(0, 1)], 0)).toThrow(RangeError);
    expect(() => downsample([point(0, 1)], 2.5)).toThrow(RangeError);
  });
});

describe('buildMemoryProfile', () => {
  it('computes peaks over all samples and the duration from the final line', () => {
    const { profile, sampling } = buildMemoryProfile(parseSamplerOutput(RECORDED), 5);
    expect(memoryProfileSchema.parse(profile)).toEqual(profile);
    expect(profile.samples).toBe(5);
    expect(profile.durationMs).toBe(24.117);
    expect(profile.intervalMs).toBe(5);
    expect(profile.peaks).toEqual({
      rssBytes: 53748 * 1024,
      vmBytes: 57080 * 1024,
      anonBytes: 51392 * 1024,
      thpBytes: 51200 * 1024,
    });
    expect(sampling.meanIntervalMs).toBeCloseTo((20.602 - 0.412) / 4, 6);
    expect(sampling.maxGapMs).toBeCloseTo(10.531 - 5.47, 6);
    expect(sampling.thpSource).toBe('rollup');
    expect(sampling.thpReads).toBe(5);
  });

  it('keeps the peaks of a long series that it down-samples', () => {
    const lines = ['# memory-sampler 1 interval_us=1000 thp=rollup'];
    for (let i = 0; i < 5000; i++) lines.push(`${i}.000 ${1000 + (i % 97)} 9000 500 0`);
    lines[2500] = `2498.500 77777 9000 500 2048`;
    lines.push('end 5000.000 x0 5000', '');
    const { profile } = buildMemoryProfile(parseSamplerOutput(lines.join('\n')), 1);
    expect(profile.samples).toBe(5000);
    expect(profile.points.length).toBe(MAX_MEMORY_POINTS);
    expect(profile.peaks.rssBytes).toBe(77777 * 1024);
    expect(profile.peaks.thpBytes).toBe(2048 * 1024);
    expect(Math.max(...profile.points.map((p) => p.rssBytes))).toBe(77777 * 1024);
    expect(profile.durationMs).toBe(5000);
  });

  it('gives an empty profile for no samples', () => {
    const { profile, sampling } = buildMemoryProfile(parseSamplerOutput(''), 5);
    expect(profile).toEqual({
      intervalMs: 5,
      durationMs: 0,
      samples: 0,
      points: [],
      peaks: { rssBytes: 0, vmBytes: 0, anonBytes: 0, thpBytes: 0 },
    });
    expect(sampling.meanIntervalMs).toBeNull();
    expect(sampling.maxGapMs).toBeNull();
  });
});
