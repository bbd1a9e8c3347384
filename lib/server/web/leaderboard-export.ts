// The leaderboard as files an organizer pastes into a results post or opens in a spreadsheet:
// Markdown (figures as the page shows them, names escaped so they cannot become links, HTML or
// extra columns) and CSV (RFC 4180 quoting, raw figures, cells that a spreadsheet would run as a
// formula defused with a leading apostrophe).
import type {
  LeaderboardTable,
  LeaderboardTargetCell,
} from '../db/leaderboard/get-leaderboard-table';
import { formatMs, formatScore, formatSpeedupInterval } from './format';
import { TIE_RULE } from '../../core/ranking/leaderboard-ties';

export const FORMULA_WORDS = {
  SUM: "the sum of the targets' speedups",
  GEOMEAN: "the geometric mean of the targets' speedups",
} as const;

/** The label of a speedup estimated from CPU time (the host was too busy for wall time). */
export const CPU_TIME_LABEL = 'CPU-time estimate';

/** What CPU_TIME_LABEL means, wherever it is shown (page, Markdown). */
export const CPU_TIME_EXPLANATION =
  'A speedup marked "CPU-time estimate" was measured while the judge host was too busy for clean ' +
  "wall-clock pairs: it is estimated from the pairs' CPU-time ratios (user + sys of each run), " +
  'which other work on the host disturbs far less than wall time, with its own interval; the time ' +
  'beside it is still wall-clock.';

/**
 * "emulated", "dev mode", "CPU-time estimate", some or none: results that were not measured on the
 * real target, or not by wall time.
 */
export function cellLabels(cell: LeaderboardTargetCell | undefined): string[] {
  if (!cell) return [];
  return [
    ...(cell.emulated ? ['emulated'] : []),
    ...(cell.devMode ? ['dev mode'] : []),
    ...(cell.basis === 'cpu-time' ? [CPU_TIME_LABEL] : []),
  ];
}

/** Some row's speedup on some target is a CPU-time estimate. */
export function hasCpuTimeEstimates(table: LeaderboardTable): boolean {
  return table.rows.some((r) => Object.values(r.targets).some((c) => c.basis === 'cpu-time'));
}

/** "2026-12-01T14:05:09Z": sortable and unambiguous in a spreadsheet. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

// ---- CSV ----

/**
 * One CSV field. Spreadsheets run a cell starting with = + - @ (or a tab or carriage return, which
 * some strip first) as a formula, so such text gets a leading apostrophe (OWASP "CSV injection");
 * then fields holding a comma, quote or line break are quoted, quotes doubled.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A figure cut to `digits` decimals for a CSV cell (null: an empty cell). */
export function round(x: number | null | undefined, digits: number): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function leaderboardCsv(table: LeaderboardTable): string {
  const header = [
    'rank',
    'tied_with_above',
    'contestant',
    ...table.targets.flatMap((t) => [
      `${t}_solution_ms`,
      `${t}_speedup`,
      `${t}_ci_low`,
      `${t}_ci_high`,
      `${t}_labels`,
    ]),
    'score',
    'score_low',
    'score_high',
    'submissions',
    'last_improvement_utc',
  ];
  const lines = [header.map(csvField).join(',')];
  for (const row of table.rows) {
    const fields: (string | number | null)[] = [
      row.rank,
      row.tiedWithAbove ? 'yes' : 'no',
      row.userName,
    ];
    for (const t of table.targets) {
      const cell = row.targets[t];
      fields.push(
        round(cell?.solutionMs, 3),
        round(cell?.speedup, 4),
        round(cell?.ciLow, 4),
        round(cell?.ciHigh, 4),
        cellLabels(cell).join('; '),
      );
    }
    fields.push(
      round(row.score, 4),
      round(row.scoreLow, 4),
      round(row.scoreHigh, 4),
      row.submissions,
      isoSeconds(row.submittedAt),
    );
    lines.push(fields.map(csvField).join(','));
  }
  // RFC 4180 line breaks; the byte-order mark makes spreadsheet programs read UTF-8 names as UTF-8.
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

// ---- Markdown ----

/**
 * Text for one Markdown table cell: one line, no column breaks, and no characters that would start
 * emphasis, a link, an image, code, HTML or an autolink.
 */
export function markdownText(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+\-.!|~<>&:]/g, (c) =>
      c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`,
    )
    .trim();
}

export function leaderboardMarkdown(table: LeaderboardTable, generatedAt: Date): string {
  const header = [
    'Rank',
    'Contestant',
    ...table.targets.flatMap((t) => [`${t} time`, `${t} speedup (95% CI)`]),
    'Score',
    'Submissions',
    'Last improvement',
  ];
  const align = [
    '---:',
    ':---',
    ...table.targets.flatMap(() => ['---:', '---:']),
    '---:',
    '---:',
    ':---',
  ];
  const lines = [
    `## ${markdownText(table.challenge.title)}: leaderboard`,
    '',
    `Score: ${FORMULA_WORDS[table.challenge.formula]}. ${TIE_RULE} Generated ${isoSeconds(generatedAt).replace('T', ' ').replace('Z', ' UTC')}.`,
    '',
    ...(hasCpuTimeEstimates(table) ? [CPU_TIME_EXPLANATION, ''] : []),
  ];
  if (table.rows.length === 0) {
    lines.push('No accepted submission yet.', '');
    return lines.join('\n');
  }
  lines.push(`| ${header.join(' | ')} |`, `| ${align.join(' | ')} |`);
  for (const row of table.rows) {
    const cells = [
      row.tiedWithAbove ? `${row.rank} ≈` : String(row.rank),
      markdownText(row.userName),
    ];
    for (const t of table.targets) {
      const cell = row.targets[t];
      const labels = cellLabels(cell);
      cells.push(
        formatMs(cell?.solutionMs),
        formatSpeedupInterval(cell?.speedup, cell?.ciLow, cell?.ciHigh) +
          (labels.length ? ` (${labels.join(', ')})` : ''),
      );
    }
    cells.push(
      `${formatScore(row.score)} (${formatScore(row.scoreLow)}–${formatScore(row.scoreHigh)})`,
      String(row.submissions),
      isoSeconds(row.submittedAt).slice(0, 16).replace('T', ' '),
    );
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('', 'Times are UTC.', '');
  return lines.join('\n');
}
