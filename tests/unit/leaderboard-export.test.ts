// The leaderboard exports: CSV quoting and formula defusing, Markdown escaping, labels and ties.
import { describe, expect, it } from 'vitest';
import type { LeaderboardTable } from '../../lib/server/db/leaderboard/get-leaderboard-table';
import {
  cellLabels,
  CPU_TIME_EXPLANATION,
  CPU_TIME_LABEL,
  csvField,
  hasCpuTimeEstimates,
  leaderboardCsv,
  leaderboardMarkdown,
  markdownText,
} from '../../lib/server/web/leaderboard-export';

/** A minimal RFC 4180 reader, so the test checks what a spreadsheet would read back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

const table: LeaderboardTable = {
  challenge: { slug: 'wordcount', title: 'Word count', formula: 'SUM', solutionsPublished: false },
  targets: ['linux-intel', 'windows-amd'],
  rows: [
    {
      rank: 1,
      userId: 'u1',

      submissionId: 's1',

      userName: '=HYPERLINK("http://evil.test","click")',
      score: 5.123456,
      scoreLow: 5,
      scoreHigh: 5.25,
      tiedWithAbove: false,
      targets: {
        'linux-intel': {
          solutionMs: 41.23456,
          baselineMs: null,
          speedup: 2.5,
          ciLow: 2.45,
          ciHigh: 2.55,
          emulated: false,
          devMode: true,
          basis: 'wall-time',
        },
        'windows-amd': {
          solutionMs: 50,
          baselineMs: null,
          speedup: 2.623456,
          ciLow: 2.55,
          ciHigh: 2.7,
          emulated: true,
          devMode: true,
          basis: 'wall-time',
        },
      },
      submissions: 7,
      submittedAt: new Date('2026-12-01T14:05:09.123Z'),
    },
    {
      rank: 2,
      userId: 'u2',

      submissionId: 's2',

      userName: 'Ada, "the" | *Countess*\n<b>x</b>',
      score: 5.1,
      scoreLow: 4.9,
      scoreHigh: 5.2,
      tiedWithAbove: true,
      targets: {
        'linux-intel': {
          solutionMs: null,
          baselineMs: null,
          speedup: 5.1,
          ciLow: null,
          ciHigh: null,
          emulated: false,
          devMode: false,
          basis: 'wall-time',
        },
      },
      submissions: 1,
      submittedAt: new Date('2026-12-01T15:00:00Z'),
    },
  ],
};

describe('csvField', () => {
  it('defuses every formula starter with an apostrophe', () => {
    for (const s of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
      expect(csvField(s).replace(/^"/, '')).toMatch(/^'/);
    expect(csvField('a=1')).toBe('a=1');
  });

  it('quotes commas, quotes and line breaks, doubling quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(2.5)).toBe('2.5');
  });
});

describe('leaderboardCsv', () => {
  it('reads back as the table, with raw figures, labels and ISO times', () => {
    const text = leaderboardCsv(table);
    expect(text.startsWith('\uFEFF')).toBe(true);
    const rows = parseCsv(text.slice(1));
    expect(rows).toHaveLength(3);
    const [header, first, second] = rows;
    expect(header).toHaveLength(3 + 2 * 5 + 5);
    const at = (row: string[] | undefined, name: string) => row?.[header?.indexOf(name) ?? -1];
    expect(at(first, 'contestant')).toBe(`'=HYPERLINK("http://evil.test","click")`);
    expect(at(first, 'linux-intel_solution_ms')).toBe('41.235');
    expect(at(first, 'windows-amd_speedup')).toBe('2.6235');
    expect(at(first, 'windows-amd_labels')).toBe('emulated; dev mode');
    expect(at(first, 'linux-intel_labels')).toBe('dev mode');
    expect(at(first, 'score')).toBe('5.1235');
    expect(at(first, 'last_improvement_utc')).toBe('2026-12-01T14:05:09Z');
    expect(at(first, 'tied_with_above')).toBe('no');
    expect(at(second, 'contestant')).toBe('Ada, "the" | *Countess*\n<b>x</b>');
    expect(at(second, 'tied_with_above')).toBe('yes');
    expect(at(second, 'windows-amd_speedup')).toBe('');
    expect(at(second, 'linux-intel_ci_low')).toBe('');
  });
});

describe('leaderboardMarkdown', () => {
  const md = leaderboardMarkdown(table, new Date('2026-12-02T00:00:00Z'));
  const lines = md.split('\n').filter((l) => l.startsWith('|'));

  it('has one row per contestant, every row with the header’s number of columns', () => {
    expect(lines).toHaveLength(2 + 2);
    // Unescaped pipes only: the escaped \| in a name must not add a column.
    const columns = (l: string) => l.split(/(?<!\\)\|/).length;
    for (const l of lines) expect(columns(l)).toBe(columns(lines[0] ?? ''));
  });

  it('escapes names so they stay text', () => {
    expect(markdownText('a|b *c* [d](e) <b>')).toBe('a\\|b \\*c\\* \\[d\\]\\(e\\) &lt;b&gt;');
    expect(lines[3]).toContain('Ada, "the" \\| \\*Countess\\* &lt;b&gt;x&lt;/b&gt;');
    expect(md).not.toContain('<b>');
  });

  it('shows ties, intervals, labels and the rule', () => {
    expect(lines[3]?.startsWith('| 2 ≈ |')).toBe(true);
    expect(lines[2]).toContain('2.50× (2.45–2.55) (dev mode)');
    expect(lines[2]).toContain('2.62× (2.55–2.70) (emulated, dev mode)');
    expect(lines[2]).toContain('5.123 (5.000–5.250)');
    expect(lines[3]).toContain('| – | 5.10× |');
    expect(md).toContain("Score: the sum of the targets' speedups.");
    expect(md).toContain('overlaps the interval of the row directly above');
    expect(md).toContain('Generated 2026-12-02 00:00:00 UTC');
  });

  it('says so when nobody is on the board', () => {
    const empty = leaderboardMarkdown({ ...table, rows: [] }, new Date());
    expect(empty).toContain('No accepted submission yet.');
    expect(empty).not.toContain('|');
  });
});

describe('a speedup estimated from CPU time', () => {
  // The first row's linux-intel speedup came from the CPU-time fallback of a host too busy.
  const [first, second] = table.rows;
  const withCpuTime: LeaderboardTable = {
    ...table,
    rows: [
      {
        ...first!,
        targets: {
          ...first!.targets,
          'linux-intel': { ...first!.targets['linux-intel']!, basis: 'cpu-time' },
        },
      },
      second!,
    ],
  };

  it('is labelled in its cell, and only there', () => {
    expect(cellLabels(withCpuTime.rows[0]!.targets['linux-intel'])).toEqual([
      'dev mode',
      CPU_TIME_LABEL,
    ]);
    expect(cellLabels(withCpuTime.rows[0]!.targets['windows-amd'])).toEqual([
      'emulated',
      'dev mode',
    ]);
    expect(hasCpuTimeEstimates(withCpuTime)).toBe(true);
    expect(hasCpuTimeEstimates(table)).toBe(false);
  });

  it('the CSV labels it; the Markdown labels it and explains the label once', () => {
    const rows = parseCsv(leaderboardCsv(withCpuTime).replace(/^\uFEFF/, ''));
    const header = rows[0]!;
    const labels = (row: string[], target: string) => row[header.indexOf(`${target}_labels`)];
    expect(labels(rows[1]!, 'linux-intel')).toBe('dev mode; CPU-time estimate');
    expect(labels(rows[1]!, 'windows-amd')).toBe('emulated; dev mode');
    expect(labels(rows[2]!, 'linux-intel')).toBe('');

    const md = leaderboardMarkdown(withCpuTime, new Date('2026-12-02T00:00:00Z'));
    expect(md).toContain('2.50× (2.45–2.55) (dev mode, CPU-time estimate)');
    expect(md.split(CPU_TIME_EXPLANATION)).toHaveLength(2);
    expect(CPU_TIME_EXPLANATION).toMatch(/too busy .* CPU-time ratios/);
    // Without such a speedup, no explanation.
    expect(leaderboardMarkdown(table, new Date())).not.toContain(CPU_TIME_EXPLANATION);
  });
});
