// The final leaderboard as files, with the provisional leaderboard's machinery
// (lib/server/web/leaderboard-export.ts): CSV with raw figures (RFC 4180, formula cells defused) and
// Markdown with the figures as the page shows them, names escaped, the method and the error rate.
import { formatScore, formatSpeedupInterval } from './format';
import type { FinalTable } from './final-table';
import { errorRateSentence, formatErrorRate } from './final-words';
import { csvField, FORMULA_WORDS, isoSeconds, markdownText, round } from './leaderboard-export';

export function finalCsv(table: FinalTable): string {
  const header = [
    'place',
    'shared_place',
    'tied_with',
    'contestant',
    ...table.targets.flatMap((t) => [`${t}_speedup`, `${t}_ci_low`, `${t}_ci_high`, `${t}_rounds`]),
    'score',
    'score_low',
    'score_high',
    'provisional_score',
    'selected_by_contestant',
    'excluded_reason',
    'tie_reason',
    'error_rate',
  ];
  const lines = [header.map(csvField).join(',')];
  for (const row of table.rows) {
    const fields: (string | number | null)[] = [
      row.place,
      row.tiedWith.length > 0 ? 'yes' : 'no',
      row.tiedWith.join('; '),
      row.userName,
    ];
    for (const t of table.targets) {
      const cell = row.targets[t];
      fields.push(
        round(cell?.speedup, 4),
        round(cell?.ciLow, 4),
        round(cell?.ciHigh, 4),
        cell?.rounds ?? null,
      );
    }
    fields.push(
      round(row.score, 4),
      round(row.scoreCiLow, 4),
      round(row.scoreCiHigh, 4),
      round(row.provisionalScore, 4),
      row.selectedExplicitly ? 'yes' : 'no',
      row.excludedReason,
      row.tieReason,
      table.errorRate,
    );
    lines.push(fields.map(csvField).join(','));
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

export function finalMarkdown(table: FinalTable, generatedAt: Date): string {
  const header = [
    'Place',
    'Contestant',
    ...table.targets.map((t) => `${t} speedup (interval)`),
    'Score (interval)',
  ];
  const align = ['---:', ':---', ...table.targets.map(() => '---:'), '---:'];
  const published = table.publishedAt
    ? `Published ${isoSeconds(table.publishedAt).replace('T', ' ').replace('Z', ' UTC')}.`
    : 'Not published yet.';
  const lines = [
    `## ${markdownText(table.challenge.title)}: final result`,
    '',
    `Score: ${FORMULA_WORDS[table.challenge.formula]}. ${table.rounds} rounds per target. ${published} ` +
      `Generated ${isoSeconds(generatedAt).replace('T', ' ').replace('Z', ' UTC')}.`,
    '',
  ];
  const placed = table.rows.filter((r) => r.excludedReason === null);
  if (placed.length > 0) {
    lines.push(`| ${header.join(' | ')} |`, `| ${align.join(' | ')} |`);
    for (const row of placed) {
      const cells = [
        row.placeLabel,
        markdownText(row.userName),
        ...table.targets.map((t) => {
          const c = row.targets[t];
          return formatSpeedupInterval(c?.speedup, c?.ciLow, c?.ciHigh);
        }),
        row.scoreCiLow !== null && row.scoreCiHigh !== null
          ? `${formatScore(row.score)} (${formatScore(row.scoreCiLow)}–${formatScore(row.scoreCiHigh)})`
          : formatScore(row.score),
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
    lines.push('');
  } else {
    lines.push('No finalist was placed.', '');
  }
  const ties = placed.filter((r) => r.tieReason);
  if (ties.length > 0) {
    lines.push('Shared places:', '');
    // One line per group: every member of a shared place carries the same reason.
    const seen = new Set<string>();
    for (const row of ties) {
      const key = [row.userName, ...row.tiedWith].sort().join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(`- ${row.placeLabel}: ${markdownText(row.tieReason ?? '')}`);
    }
    lines.push('');
  }
  const excluded = table.rows.filter((r) => r.excludedReason !== null);
  if (excluded.length > 0) {
    lines.push('Not placed:', '');
    for (const row of excluded)
      lines.push(`- ${markdownText(row.userName)}: ${markdownText(row.excludedReason ?? '')}`);
    lines.push('');
  }
  lines.push(
    `Method: ${markdownText(table.method)}`,
    '',
    `Error rate ${formatErrorRate(table.errorRate)}: ${markdownText(errorRateSentence(table.errorRate))}`,
    '',
  );
  return lines.join('\n');
}
