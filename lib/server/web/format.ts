// How figures read on every page: times, speedups with their interval, sizes, dates (UTC).
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(1)} ms`;
}

export function formatSpeedup(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;
}

/** "2.31× (2.27–2.35)". */
export function formatSpeedupInterval(
  speedup: number | null | undefined,
  low: number | null | undefined,
  high: number | null | undefined,
): string {
  if (speedup === null || speedup === undefined) return '–';
  if (low === null || low === undefined || high === null || high === undefined)
    return formatSpeedup(speedup);
  return `${formatSpeedup(speedup)} (${low.toFixed(2)}–${high.toFixed(2)})`;
}

export function formatScore(score: number | null | undefined): string {
  if (score === null || score === undefined || !Number.isFinite(score)) return '–';
  return score.toFixed(3);
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

/** "2026-12-01 14:05 UTC": the same for every visitor and on the server. */
export function formatDate(date: Date | string | null | undefined): string {
  if (!date) return '–';
  const d = typeof date === 'string' ? new Date(date) : date;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "2026-12-01 14:05:09 UTC": when seconds matter (how old a cached page is). */
export function formatDateSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** "95%": the interval's stated level, floored, since the judge's interval covers at least that. */
export function formatConfidence(confidence: number | null | undefined): string {
  const c = confidence ?? 0.95;
  return `${Math.floor(c * 100 + 1e-9)}%`;
}

/** A chart axis tick for a time in milliseconds: "1.5 s", "250 ms", short enough for 375 px. */
export function formatAxisMs(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '';
  if (value === 0) return '0';
  if (Math.abs(value) >= 1000) return `${(value / 1000).toFixed(value >= 10_000 ? 0 : 1)} s`;
  return `${value.toFixed(0)} ms`;
}
