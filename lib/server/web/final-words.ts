// How the final evaluation reads on every page and in the exports: shared places ("2="), the error
// rate, time left, and the spread of an organizer's repeated judgings. Pure, so the pages, the
// exports and the unit tests agree on every word.
import { formatSpeedup } from './format';

/** "2=" when the place is shared with others, "2" when it is not, "–" without a place. */
export function placeLabel(place: number | null | undefined, tiedWith: readonly string[]): string {
  if (place === null || place === undefined) return '–';
  return tiedWith.length > 0 ? `${place}=` : String(place);
}

/** "shared with Ada and Bob" (the others on the same place), for a tooltip or an export cell. */
export function sharedWith(names: readonly string[]): string {
  if (names.length === 0) return '';
  if (names.length === 1) return `shared with ${names[0]}`;
  return `shared with ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** 0.05 → "5%", 0.01 → "1%", 0.025 → "2.5%". */
export function formatErrorRate(rate: number): string {
  const percent = Math.round(rate * 1000) / 10;
  return `${percent}%`;
}

/** What the error rate means, in one sentence ("Error rate 5%." goes before it where it is shown). */
export function errorRateSentence(rate: number): string {
  return (
    `The chance that any of the places shown puts one ` +
    `finalist above another who is in truth no slower is at most ${formatErrorRate(rate)} over ` +
    `all the comparisons together (corrected for their number). Finalists the judge cannot ` +
    `tell apart at that rate share a place.`
  );
}

/** "about 12 min", "about 40 s", "under a second"; null when nothing sensible is known. */
export function formatTimeLeft(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return null;
  if (ms < 1_000) return 'under a second';
  if (ms < 90_000) return `about ${Math.round(ms / 1000)} s`;
  if (ms < 90 * 60_000) return `about ${Math.round(ms / 60_000)} min`;
  return `about ${(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * Time left of a running session from its own pace: the rounds finished since it started, and how
 * long they took. A runner's estimate (job progress) wins when there is one.
 */
export function paceEstimateMs(
  session: { roundsDone: number; roundsPlanned: number; startedAt: Date | null },
  now: number,
): number | null {
  if (!session.startedAt || session.roundsDone <= 0) return null;
  const elapsed = now - session.startedAt.getTime();
  if (elapsed <= 0) return null;
  const left = Math.max(0, session.roundsPlanned - session.roundsDone);
  return (elapsed / session.roundsDone) * left;
}

export interface SeriesSpread {
  /** Judgings with a speedup (accepted ones). */
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  /** Sample standard deviation over the mean; null below two speedups. */
  cv: number | null;
}

/** The spread of one series of repeated judgings: min–max and the coefficient of variation. */
export function seriesSpread(speedups: readonly (number | null)[]): SeriesSpread {
  const xs = speedups.filter((x): x is number => x !== null && Number.isFinite(x));
  if (xs.length === 0) return { count: 0, min: null, max: null, mean: null, cv: null };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const cv =
    xs.length < 2 || mean === 0
      ? null
      : Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1)) / mean;
  return { count: xs.length, min: Math.min(...xs), max: Math.max(...xs), mean, cv };
}

/** "1.92×–2.05× · CV 2.4%" (or what is known of it). */
export function formatSpread(spread: SeriesSpread): string {
  if (spread.count === 0) return 'no speedup yet';
  const range =
    spread.min === spread.max
      ? formatSpeedup(spread.min)
      : `${formatSpeedup(spread.min)}–${formatSpeedup(spread.max)}`;
  return spread.cv === null ? range : `${range} · CV ${(spread.cv * 100).toFixed(1)}%`;
}
