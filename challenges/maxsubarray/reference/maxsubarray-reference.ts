// The reference implementation, independent of the C++ baseline: prefix sums in BigInt instead of
// Kadane's scan. For each end e, the best begin is the one before e with the smallest prefix sum
// (the latest such one: the shortest range); the best range is the first end with the largest sum.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';

export interface MaxRange {
  sum: bigint;
  begin: number;
  end: number;
}

/** Parses lines `-?digits\n` from a stream of bytes and folds them into the best range. */
export async function referenceRange(filePath: string): Promise<MaxRange> {
  let prefix = 0n;
  let minPrefix = 0n;
  let minAt = 0;
  let best: MaxRange | undefined;
  let count = 0;
  let digits = 0n;
  let negative = false;
  let inNumber = false;
  const finishValue = (): void => {
    const value = negative ? -digits : digits;
    prefix += value;
    count += 1;
    const sum = prefix - minPrefix;
    if (best === undefined || sum > best.sum) best = { sum, begin: minAt, end: count };
    // `<=`: of equal prefixes the latest begins the shortest range.
    if (prefix <= minPrefix) {
      minPrefix = prefix;
      minAt = count;
    }
    digits = 0n;
    negative = false;
    inNumber = false;
  };
  for await (const chunk of createReadStream(filePath) as AsyncIterable<Buffer>) {
    for (const byte of chunk) {
      if (byte === 0x2d) {
        negative = true;
        inNumber = true;
      } else if (byte >= 0x30 && byte <= 0x39) {
        digits = digits * 10n + BigInt(byte - 0x30);
        inNumber = true;
      } else if (byte === 0x0a) {
        if (inNumber) finishValue();
      } else {
        throw new Error(
          `${filePath}: unexpected byte 0x${byte.toString(16)} after ${count} values`,
        );
      }
    }
  }
  if (inNumber) finishValue();
  return best ?? { sum: 0n, begin: 0, end: 0 };
}

export function formatRange(range: MaxRange): string {
  return `${range.sum} ${range.begin} ${range.end}\n`;
}

export async function writeReferenceOutput(filePath: string, out: Writable): Promise<void> {
  const text = formatRange(await referenceRange(filePath));
  await new Promise<void>((resolve, reject) =>
    out.write(text, (error) => (error ? reject(error) : resolve())),
  );
}

export async function referenceOutputSha256(filePath: string): Promise<string> {
  return createHash('sha256')
    .update(formatRange(await referenceRange(filePath)))
    .digest('hex');
}
