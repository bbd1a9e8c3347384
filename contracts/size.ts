// Byte sizes as people write them ("256MiB", "64 MB", "1024"), parsed once at the edge.
import { z } from 'zod';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** Parses "256MiB" → 268435456. Returns undefined when the text is not a size. */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!match) return undefined;
  const unit = UNITS[match[2]!.toLowerCase()];
  if (unit === undefined) return undefined;
  const bytes = Math.round(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

export function formatByteSize(bytes: number): string {
  for (const [unit, factor] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  for (const [unit, factor] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= factor) return `${(bytes / factor).toFixed(1)}${unit}`;
  }
  return `${bytes}B`;
}

/** A byte size given as a number of bytes or a string with a unit (B, KiB, MiB, GiB, KB, MB, GB). */
export const byteSizeSchema = z
  .union([z.number().int().nonnegative(), z.string()])
  .transform((value, ctx) => {
    if (typeof value === 'number') return value;
    const bytes = parseByteSize(value);
    if (bytes === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${value}" is not a size (examples: 1048576, "64KiB", "256MiB")`,
      });
      return z.NEVER;
    }
    return bytes;
  });
