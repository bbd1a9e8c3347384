// Turns a judging result into the text report the CLI prints: verdict first, then the speedup with
// its interval, the times side by side, every run, and where the judging's own time went.
import type { CounterComparison, JudgingResult, Run, Topdown } from '../../contracts';
import { lineDifference } from '../../lib/challenge/first-difference';
import { describePlausibility } from '../../lib/stats/plausibility';

/** Failures whose differing lines the text report prints (every failure is named). */
const REPORT_DIFFS = 5;

const ms = (value: number) =>
  value >= 10_000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;
const pct = (value: number) => `${(value * 100).toFixed(1)}%`;

function runLine(run: Run): string {
  const s = run.stats;
  const pair = run.pair === null ? '  -' : String(run.pair + 1).padStart(3);
  return [
    pair,
    run.kind.padEnd(6),
    run.side.padEnd(8),
    ms(s.wallMs).padStart(10),
    ms(s.userMs).padStart(10),
    ms(s.sysMs).padStart(9),
    `${(s.maxRssBytes / 2 ** 20).toFixed(1)} MiB`.padStart(11),
    String(s.minorFaults).padStart(8),
    `${(s.cpuUtilization * 100).toFixed(0)}%`.padStart(5),
    run.correct ? 'ok' : 'WRONG',
    evidenceText(run),
  ]
    .join('  ')
    .trimEnd();
}

/** Other tasks' time on the CPU, threads started, and why the run was discarded, if it was. */
function evidenceText(run: Run): string {
  const e = run.evidence;
  if (!e) return '';
  const parts: string[] = [];
  if (e.otherTasksMs !== null) parts.push(`other ${e.otherTasksMs.toFixed(0)} ms`);
  if (e.stealMs) parts.push(`steal ${e.stealMs.toFixed(0)} ms`);
  if (e.tasksStarted) parts.push(`${e.tasksStarted} tasks started`);
  const cold = e.residency.filter((r) => r.residentBefore < r.pages).map((r) => r.file);
  if (cold.length) parts.push(`re-warmed ${cold.join(', ')}`);
  if (run.discarded) parts.push(`DISCARDED (${e.disturbed.join(', ') || 'pair disturbed'})`);
  return parts.join(', ');
}

export function formatReport(result: JudgingResult): string {
  const out: string[] = [];
  const { stages } = result;
  const labels = [result.host.devMode && 'DEV MODE', result.host.emulated && 'EMULATED'].filter(
    Boolean,
  );
  out.push(
    `${result.verdict}  ${result.challenge.slug} v${result.challenge.version} on ${result.target}${labels.length ? ` [${labels.join(', ')}]` : ''}`,
  );
  out.push(`  ${result.message}`);
  if (result.host.emulated)
    out.push(
      `  EMULATED: ${result.host.os}, not a real ${result.target} host: the timings are for development only`,
    );

  const estimate = stages.measure?.estimate;
  if (estimate) {
    out.push('');
    const label =
      estimate.basis === 'cpu-time' ? 'CPU-TIME ESTIMATE (host too busy for wall time): ' : '';
    out.push(
      `${label}Speedup ${estimate.speedup.toFixed(3)}×  (${(estimate.confidence * 100).toFixed(0)}% CI ${estimate.ciLow.toFixed(3)}–${estimate.ciHigh.toFixed(3)}, ±${pct(estimate.halfWidthRel)}, ${estimate.pairs} pairs, ${estimate.method}, stopped: ${estimate.stopReason})`,
    );
  }
  const m = stages.measure;
  const cpuEstimate = m?.cpuTimeEstimate;
  if (cpuEstimate && estimate?.basis !== 'cpu-time') {
    out.push(
      `  CPU-time speedup ${cpuEstimate.speedup.toFixed(3)}×  (CI ${cpuEstimate.ciLow.toFixed(3)}–${cpuEstimate.ciHigh.toFixed(3)}, user + sys of the same pairs)${estimate ? '' : ' — for the record only: the host was too busy, no speedup was given'}`,
    );
  }
  if (m?.disturbance) {
    const d = m.disturbance;
    const why = Object.entries(d.reasons)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    out.push(
      `  disturbed pairs discarded: ${d.discardedPairs}${why ? ` (${why})` : ''}${d.tooBusy ? ', host too busy' : ''}`,
    );
  }
  if (m?.baseline && m.solution) {
    out.push(
      `  baseline  median ${ms(m.baseline.medianMs)}  min ${ms(m.baseline.minMs)}  max ${ms(m.baseline.maxMs)}  cv ${pct(m.baseline.cv)}`,
    );
    out.push(
      `  solution  median ${ms(m.solution.medianMs)}  min ${ms(m.solution.minMs)}  max ${ms(m.solution.maxMs)}  cv ${pct(m.solution.cv)}`,
    );
    out.push(
      `  input ${(m.inputBytes / 2 ** 20).toFixed(1)} MiB (sha256 ${m.inputSha256.slice(0, 12)}…), pinned to CPU ${m.cpu ?? 'none'}`,
    );
  }
  if (m?.plausibility) {
    const text = describePlausibility(m.plausibility);
    out.push(m.plausibility.flagged ? `  FLAGGED, ${text}` : `  ${text}`);
  } else if (m?.plausibility === null) {
    out.push("  plausibility: not checked (this host's memory bandwidth could not be measured)");
  }

  if (m?.counters.length) {
    out.push('');
    out.push(...countersTable(m.counters));
  }
  const profile = stages.profile;
  if (profile) {
    if (profile.topdown) {
      out.push('');
      out.push(`Top-Down level 1 (${profile.topdown.baseline.source}):`);
      out.push(...topdownBars('baseline', profile.topdown.baseline));
      out.push(...topdownBars('solution', profile.topdown.solution));
    }
    if (profile.memory) {
      const { baseline: b, solution: s } = profile.memory;
      out.push('');
      out.push('Memory (profile run, peaks):     baseline    solution');
      for (const [label, key] of [
        ['RSS', 'rssBytes'],
        ['virtual size', 'vmBytes'],
        ['anonymous RSS', 'anonBytes'],
        ['transparent huge pages', 'thpBytes'],
      ] as const) {
        out.push(
          `  ${label.padEnd(28)} ${mib(b.peaks[key]).padStart(10)}  ${mib(s.peaks[key]).padStart(10)}`,
        );
      }
      out.push(`  samples: ${b.samples} and ${s.samples}, every ${b.intervalMs} ms`);
    }
    if (profile.deterministic) {
      const d = profile.deterministic;
      out.push('');
      out.push(
        `Deterministic (cachegrind, ${(d.inputBytes / 2 ** 20).toFixed(1)} MiB input, ${d.flags.join(' ')}):`,
      );
      out.push(`  instruction speedup ${d.instructionSpeedup.toFixed(3)}×`);
      for (const [label, key] of [
        ['instructions', 'instructions'],
        ['L1 data misses', 'l1DataMisses'],
        ['LL misses', 'llMisses'],
        ['branch mispredictions', 'branchMispredictions'],
        ['estimated cycles', 'estimatedCycles'],
      ] as const) {
        out.push(
          `  ${label.padEnd(22)} ${count(d.baseline[key]).padStart(16)} ${count(d.solution[key]).padStart(16)}  ${ratio(d.baseline[key], d.solution[key])}`,
        );
      }
    }
    for (const note of profile.notes) out.push(`  note: ${note}`);
  }

  if (stages.intake.files.length) {
    out.push('');
    out.push('Patch:');
    for (const f of stages.intake.files)
      out.push(`  ${f.change.padEnd(8)} ${f.path}  +${f.additions} -${f.deletions}`);
  }
  if (stages.build && (!stages.build.solution.ok || result.verdict === 'BUILD_ERROR')) {
    out.push('');
    out.push('Build log (solution):');
    out.push(indent(stages.build.solution.log.trimEnd() || '(empty)'));
  }
  const failed =
    stages.test?.cases.filter((c) => c.outcome !== 'passed' && c.outcome !== 'skipped') ?? [];
  const skipped = stages.test?.cases.filter((c) => c.outcome === 'skipped') ?? [];
  if (stages.test) {
    out.push('');
    out.push(
      `Tests: ${stages.test.cases.length - failed.length - skipped.length}/${stages.test.cases.length} passed${skipped.length ? `, ${skipped.length} not run after a failure` : ''}`,
    );
    // Every failure is named; the diffs of the first few are printed, the rest are in --json.
    failed.forEach((c, i) => {
      out.push(
        `  ${c.required ? 'FAILED' : 'advisory'} ${c.group}/${c.name}: ${c.outcome}${c.message ? ` — ${c.message}` : ''}`,
      );
      if (i >= REPORT_DIFFS) return;
      for (const d of c.diff) {
        const shown = lineDifference(d);
        const indent = ' '.repeat(String(d.line).length + 5);
        out.push(`    line ${d.line}: expected ${quoteLine(shown.expected, d.escaped)}`);
        out.push(`    ${indent} got      ${quoteLine(shown.got, d.escaped)}`);
        if (shown.description) out.push(`    ${indent} ${shown.description}`);
      }
    });
    if (failed.length > REPORT_DIFFS)
      out.push(
        `  (differences shown for the first ${REPORT_DIFFS} of ${failed.length} failures; all of them: --json)`,
      );
    if (skipped.length)
      out.push(
        `  not run after a failure: ${skipped.map((c) => `${c.group}/${c.name}`).join(', ')}`,
      );
  }

  if (m?.runs.length) {
    out.push('');
    out.push('Runs:');
    out.push(
      '  pair  kind    side           wall        user       sys         RSS    minflt   cpu  evidence',
    );
    for (const run of m.runs) out.push(`  ${runLine(run)}`);
  }

  if (result.warnings.length) {
    out.push('');
    out.push('Warnings:');
    for (const w of result.warnings) out.push(`  - ${w}`);
  }

  out.push('');
  const stageTimes = Object.entries(result.stageDurationsMs)
    .map(([stage, t]) => `${stage} ${ms(t)}`)
    .join(', ');
  out.push(`Judging took ${ms(result.durationMs)}: ${stageTimes}`);
  const h = result.host;
  out.push(
    `Host: ${h.cpuModel} (${h.cpuVendor}, ${h.cores} cores), ${h.os}, ${h.compiler}, sandbox ${h.sandbox}, governor ${h.governor ?? 'unknown'}, turbo ${h.turbo ?? 'unknown'}`,
  );
  return `${out.join('\n')}\n`;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const count = (n: number) => Math.round(n).toLocaleString('en-US');
const ratio = (baseline: number, solution: number) =>
  baseline > 0 ? `×${(solution / baseline).toFixed(3)}` : '';

function formatValue(value: number | null, unit: string): string {
  if (value === null) return '—';
  if (Math.abs(value) >= 1e6) return count(value);
  return `${Number(value.toPrecision(4))}${unit && unit !== 'count' ? ` ${unit}` : ''}`;
}

function countersTable(counters: CounterComparison[]): string[] {
  const lines = ['Counters (median of timed runs):        baseline          solution     ratio'];
  for (const c of counters) {
    const name = `${c.kind === 'derived' ? '= ' : ''}${c.name}`.padEnd(30);
    if (c.status !== 'counted') {
      lines.push(
        `  ${name} ${c.status === 'unsupported' ? 'unsupported on this host' : 'not counted'}`,
      );
      continue;
    }
    const mux =
      c.runningPercent !== null && c.runningPercent < 100
        ? `  (counted ${c.runningPercent.toFixed(0)}% of the run)`
        : '';
    lines.push(
      `  ${name} ${formatValue(c.baseline, c.unit).padStart(16)}  ${formatValue(c.solution, c.unit).padStart(16)}  ${c.ratio === null ? '' : `×${c.ratio.toFixed(3)}`}${mux}`,
    );
  }
  return lines;
}

const BAR_WIDTH = 40;

function topdownBars(side: string, t: Topdown): string[] {
  const parts = [
    ['R', t.retiring],
    ['S', t.badSpeculation],
    ['F', t.frontendBound],
    ['B', t.backendBound],
  ] as const;
  const bar = parts.map(([ch, share]) => ch.repeat(Math.round(share * BAR_WIDTH))).join('');
  const legend = `retiring ${pct(t.retiring)}, bad speculation ${pct(t.badSpeculation)}, frontend ${pct(t.frontendBound)}, backend ${pct(t.backendBound)}`;
  return [`  ${side.padEnd(9)}|${bar.padEnd(BAR_WIDTH)}| ${legend}`];
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/**
 * A differing line in double quotes with control characters escaped (a tab as \t). A judge that
 * escaped invalid bytes itself (`\xNN`, a backslash as `\\`) is not escaped twice.
 */
function quoteLine(text: string | null, escaped: boolean | undefined): string {
  if (text === null) return '(no line)';
  if (!escaped) return JSON.stringify(text);
  const controls = text.replace(
    // eslint-disable-next-line no-control-regex -- making control bytes visible is the point
    /[\u0000-\u001f\u007f]/g,
    (ch) =>
      ({ '\t': '\\t', '\r': '\\r', '\v': '\\v', '\f': '\\f' })[ch] ??
      `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return `"${controls.replaceAll('"', '\\"')}"`;
}
