// The combined score formulas, and the database URL handling that the adapter needs.
import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../lib/server/db/client';
import { combineSpeedups } from '../../lib/core/stats/combine-speedups';

describe('combineSpeedups', () => {
  it('sums, as the 2022 contest ranked', () => {
    expect(combineSpeedups('SUM', [2, 3.5])).toBe(5.5);
    expect(combineSpeedups('SUM', [1.25])).toBe(1.25);
  });

  it('takes the geometric mean without overflowing', () => {
    expect(combineSpeedups('GEOMEAN', [2, 8])).toBeCloseTo(4, 12);
    expect(combineSpeedups('GEOMEAN', [1e200, 1e200, 1e200])).toBeCloseTo(1e200, -188);
    expect(combineSpeedups('GEOMEAN', [0.5, 2])).toBeCloseTo(1, 12);
  });

  it('refuses no speedups and non-positive or infinite ones', () => {
    expect(() => combineSpeedups('SUM', [])).toThrow(/no speedups/);
    expect(() => combineSpeedups('GEOMEAN', [2, 0])).toThrow(/positive/);
    expect(() => combineSpeedups('SUM', [Infinity])).toThrow(/finite/);
    expect(() => combineSpeedups('SUM', [Number.NaN])).toThrow();
  });
});

describe('parseDatabaseUrl', () => {
  it("splits Prisma's schema parameter off the URL the driver gets", () => {
    expect(
      parseDatabaseUrl('postgresql://u@127.0.0.1:5432/db?schema=test_1&sslmode=disable'),
    ).toEqual({
      connectionString: 'postgresql://u@127.0.0.1:5432/db?sslmode=disable',
      schema: 'test_1',
    });
    expect(parseDatabaseUrl('postgresql://u@h/db').schema).toBeUndefined();
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => parseDatabaseUrl('postgresql://u@h/db?schema=a";drop')).toThrow(/identifier/);
  });
});
