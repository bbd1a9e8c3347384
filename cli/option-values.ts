// Parsing option values the same way in every command: a bad value is a UsageError naming the option.
import { parseByteSize } from '../contracts';
import { UsageError } from './usage-error';

export function intOption(
  value: string | undefined,
  name: string,
  min: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`${name}: "${value}" must be a whole number ≥ ${min}`);
  return n;
}

export function sizeOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const bytes = parseByteSize(value);
  if (bytes === undefined || bytes <= 0)
    throw new UsageError(`${name}: "${value}" is not a size (e.g. 64MiB)`);
  return bytes;
}
