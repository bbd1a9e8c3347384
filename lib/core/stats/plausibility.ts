// The plausibility check (contracts/judging.ts plausibilitySchema): a program that
// finishes faster than the host can read its input from memory did not read its input, whatever
// its output says. Flagged for the organizer, never a verdict by itself.
import type { Plausibility } from '../../../contracts';

export function plausibilityOf(options: {
  inputBytes: number;
  /** The fastest timed run of the program. */
  fastestMs: number;
  /** The host's sequential read bandwidth (bytes/s); null when the runner could not measure it. */
  bandwidthBytesPerSecond: number | null;
}): Plausibility | null {
  const { inputBytes, fastestMs, bandwidthBytesPerSecond } = options;
  if (!bandwidthBytesPerSecond || bandwidthBytesPerSecond <= 0) return null;
  const minPlausibleMs = (inputBytes / bandwidthBytesPerSecond) * 1000;
  return {
    bandwidthBytesPerSecond,
    inputBytes,
    minPlausibleMs,
    fastestMs,
    flagged: fastestMs < minPlausibleMs,
  };
}

/** A time in ms with enough digits for the sub-millisecond minimums of small inputs. */
function ms(value: number): string {
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 1) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(3)} ms`;
}

/**
 * The plausibility check in one sentence, for the organizer's pages, the CLI report and the
 * runner's log: the least time, the fastest run, the bandwidth, and the flag when there is one.
 */
export function describePlausibility(p: Plausibility): string {
  const figures =
    `fastest solution run ${ms(p.fastestMs)}, least time to read its ${(p.inputBytes / 2 ** 20).toFixed(1)} MiB input ` +
    `${ms(p.minPlausibleMs)} at this host's ${(p.bandwidthBytesPerSecond / 1e9).toFixed(1)} GB/s memory bandwidth`;
  return p.flagged
    ? `implausibly fast: ${figures}. A program this fast cannot have read its input; check the patch (does it read the input at all?)`
    : `plausible: ${figures}`;
}
