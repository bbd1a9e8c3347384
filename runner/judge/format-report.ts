// Turns a judging result into the text report the CLI prints: verdict first, then the speedup with
// its interval, the times side by side, every run, and where the judging's own time went.
import type { JudgingResult, Run } from '../../contracts';

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
  ].join('  ');
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

  const estimate = stages.measure?.estimate;
  if (estimate) {
    out.push('');
    out.push(
      `Speedup ${estimate.speedup.toFixed(3)}×  (${(estimate.confidence * 100).toFixed(0)}% CI ${estimate.ciLow.toFixed(3)}–${estimate.ciHigh.toFixed(3)}, ±${pct(estimate.halfWidthRel)}, ${estimate.pairs} pairs, ${estimate.method}, stopped: ${estimate.stopReason})`,
    );
  }
  const m = stages.measure;
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
  const skipped = stages.test?.cases.filter((c) => c.outcome === 'skipped').length ?? 0;
  if (stages.test) {
    out.push('');
    out.push(
      `Tests: ${stages.test.cases.length - failed.length - skipped}/${stages.test.cases.length} passed${skipped ? `, ${skipped} not run after a failure` : ''}`,
    );
    for (const c of failed.slice(0, 5)) {
      out.push(
        `  ${c.required ? 'FAILED' : 'advisory'} ${c.group}/${c.name}: ${c.outcome}${c.message ? ` — ${c.message}` : ''}`,
      );
      for (const d of c.diff) {
        out.push(`    line ${d.line}: expected ${JSON.stringify(d.expected)}`);
        out.push(`    ${' '.repeat(String(d.line).length + 5)} got      ${JSON.stringify(d.got)}`);
      }
    }
  }

  if (m?.runs.length) {
    out.push('');
    out.push('Runs:');
    out.push(
      '  pair  kind    side           wall        user       sys         RSS    minflt   cpu',
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

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
