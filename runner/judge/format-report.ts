// Turns a judging result into the text report the CLI prints: verdict first, then the speedup with
// its interval, the times side by side, every run, and where the judging's own time went.
import { describeHostDrift } from '../../lib/core/stats/host-drift';
import type {
  CounterComparison,
  Deterministic,
  FunctionCost,
  JudgingResult,
  ProfileStage,
  Run,
  TestCaseResult,
  Topdown,
} from '../../contracts';
import { lineDifference } from '../../lib/core/challenge/first-difference';
import { compareHotspots, shortFunctionName } from '../../lib/core/profile/compare-hotspots';
import { selfSamples } from '../../lib/core/profile/folded-stacks';
import { describePlausibility } from '../../lib/core/stats/plausibility';
import { describeMeasureSession } from '../../lib/core/stats/session-cost';

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

/** The report's sections in order; each returns its lines (none when it has nothing to say). */
export function formatReport(result: JudgingResult): string {
  const out = [
    ...headerSection(result),
    ...speedupSection(result),
    ...timesSection(result),
    ...countersSection(result),
    ...profileSection(result),
    ...patchSection(result),
    ...buildLogSection(result),
    ...testsSection(result),
    ...runsSection(result),
    ...warningsSection(result),
    ...footerSection(result),
  ];
  return `${out.join('\n')}\n`;
}

/** The verdict with the challenge and target (labelled when not the target's hardware), and why. */
function headerSection(result: JudgingResult): string[] {
  const labels = [result.host.devMode && 'DEV MODE', result.host.emulated && 'EMULATED'].filter(
    Boolean,
  );
  const out = [
    `${result.verdict}  ${result.challenge.slug} v${result.challenge.version} on ${result.target}${labels.length ? ` [${labels.join(', ')}]` : ''}`,
    `  ${result.message}`,
  ];
  if (result.host.emulated)
    out.push(
      `  EMULATED: ${result.host.os}, not a real ${result.target} host: the timings are for development only`,
    );
  if (result.stages.build?.identicalBinaries)
    out.push(
      "  nothing changed: the solution compiles to the baseline's machine code (the template's " +
        'SOLUTION branch starts as a copy of the baseline: make it faster)',
    );
  return out;
}

/** The speedup with its interval, and the CPU-time speedup beside it (or alone, for the record). */
export function speedupSection(result: JudgingResult): string[] {
  const out: string[] = [];
  const m = result.stages.measure;
  const estimate = m?.estimate;
  if (estimate) {
    out.push('');
    const label =
      estimate.basis === 'cpu-time' ? 'CPU-TIME ESTIMATE (host too busy for wall time): ' : '';
    out.push(
      `${label}Speedup ${estimate.speedup.toFixed(3)}×  (${(estimate.confidence * 100).toFixed(0)}% CI ${estimate.ciLow.toFixed(3)}–${estimate.ciHigh.toFixed(3)}, ±${pct(estimate.halfWidthRel)}, ${estimate.pairs} pairs, ${estimate.method}, stopped: ${estimate.stopReason})`,
    );
    if (estimate.hostDrift) out.push(`  (${describeHostDrift(estimate.hostDrift)})`);
  }
  const cpuEstimate = m?.cpuTimeEstimate;
  if (cpuEstimate && estimate?.basis !== 'cpu-time') {
    out.push(
      `  CPU-time speedup ${cpuEstimate.speedup.toFixed(3)}×  (CI ${cpuEstimate.ciLow.toFixed(3)}–${cpuEstimate.ciHigh.toFixed(3)}, user + sys of the same pairs)${estimate ? '' : ' — for the record only: the host was too busy, no speedup was given'}`,
    );
  }
  return out;
}

/** The discarded pairs, both sides' times, the input and CPU, and the plausibility check. */
function timesSection(result: JudgingResult): string[] {
  const out: string[] = [];
  const m = result.stages.measure;
  if (m?.session) out.push(`  ${describeMeasureSession(m.session)}`);
  // The baseline's fixed costs are paid once per host and benchmark: its build, its output on each
  // input and its profile runs are cached (build-cache.ts, inputs.ts, baseline-profile-cache.ts).
  if (result.stages.build?.baseline.cached)
    out.push(
      '  baseline: its build, expected outputs and profile reused from earlier judgings on this host',
    );
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
      `  solution  median ${ms(m.solution.medianMs)}  min ${ms(m.solution.minMs)}  max ${ms(m.solution.maxMs)}  cv ${pct(m.solution.cv)}`,
      `  input ${(m.inputBytes / 2 ** 20).toFixed(1)} MiB (sha256 ${m.inputSha256.slice(0, 12)}…), pinned to CPU ${m.cpu ?? 'none'}`,
    );
  }
  if (m?.plausibility) {
    const text = describePlausibility(m.plausibility);
    out.push(m.plausibility.flagged ? `  FLAGGED, ${text}` : `  ${text}`);
  } else if (m?.plausibility === null) {
    out.push("  plausibility: not checked (this host's memory bandwidth could not be measured)");
  }
  return out;
}

function countersSection(result: JudgingResult): string[] {
  const counters = result.stages.measure?.counters;
  return counters?.length ? ['', ...countersTable(counters)] : [];
}

/** Top-Down, the memory profile's peaks, cachegrind's counts, and the profile's notes. */
function profileSection(result: JudgingResult): string[] {
  const profile = result.stages.profile;
  if (!profile) return [];
  const out: string[] = [];
  if (profile.topdown) {
    out.push(
      '',
      `Top-Down level 1 (${profile.topdown.baseline.source}):`,
      ...topdownBars('baseline', profile.topdown.baseline),
      ...topdownBars('solution', profile.topdown.solution),
    );
  }
  if (profile.memory) out.push(...memoryLines(profile.memory));
  if (profile.sampled) out.push(...sampledLines(profile.sampled));
  if (profile.deterministic) out.push(...deterministicLines(profile.deterministic));
  if (profile.deterministic?.hotspots) out.push(...hotspotLines(profile.deterministic.hotspots));
  for (const note of profile.notes) out.push(`  note: ${note}`);
  return out;
}

function memoryLines(memory: NonNullable<ProfileStage['memory']>): string[] {
  const { baseline: b, solution: s } = memory;
  const out = ['', 'Memory (profile run, peaks):     baseline    solution'];
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
  return out;
}

function deterministicLines(d: NonNullable<ProfileStage['deterministic']>): string[] {
  const out = [
    '',
    `Deterministic (cachegrind, ${(d.inputBytes / 2 ** 20).toFixed(1)} MiB input, ${d.flags.join(' ')}):`,
    `  instruction speedup ${d.instructionSpeedup.toFixed(3)}×`,
  ];
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
  return out;
}

/** The text form of the flame graphs: each side's functions with the most samples of their own. */
function sampledLines(sampled: NonNullable<ProfileStage['sampled']>): string[] {
  const { baseline: b, solution: s } = sampled;
  const out = [
    '',
    `Where the time goes (perf record, ${s.event}, ${s.frequencyHz} Hz; ${b.samples} and ${s.samples} samples):`,
  ];
  for (const [label, side] of [
    ['baseline', b],
    ['solution', s],
  ] as const) {
    out.push(`  ${label}, most samples in the function itself:`);
    for (const f of selfSamples(side, 8))
      out.push(
        `    ${percentOf(f.samples, side.samples).padStart(6)}  ${shortFunctionName(f.name, 90)}`,
      );
  }
  return out;
}

/** cachegrind's instructions per function, baseline and solution lined up by name. */
function hotspotLines(hotspots: NonNullable<Deterministic['hotspots']>): string[] {
  const out = [
    '',
    'Instructions per function (cachegrind; inlined code counts toward its caller):',
    `  ${'baseline'.padStart(16)} ${'solution'.padStart(16)}  function`,
  ];
  for (const r of compareHotspots(hotspots.baseline, hotspots.solution, 12)) {
    const side = (f: FunctionCost | null) => (f ? count(f.instructions) : '–').padStart(16);
    out.push(`  ${side(r.baseline)} ${side(r.solution)}  ${shortFunctionName(r.name, 90)}`);
  }
  return out;
}

function percentOf(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '–';
}

function patchSection(result: JudgingResult): string[] {
  const { files } = result.stages.intake;
  if (!files.length) return [];
  return [
    '',
    'Patch:',
    ...files.map((f) => `  ${f.change.padEnd(8)} ${f.path}  +${f.additions} -${f.deletions}`),
  ];
}

/** The solution's build log, when it did not build (or the build decided the verdict). */
function buildLogSection(result: JudgingResult): string[] {
  const { build } = result.stages;
  if (!build || (build.solution.ok && result.verdict !== 'BUILD_ERROR')) return [];
  return ['', 'Build log (solution):', indent(build.solution.log.trimEnd() || '(empty)')];
}

/** The tests passed, every failure named (the first few with their differing lines), the skipped. */
export function testsSection(result: JudgingResult): string[] {
  const { test } = result.stages;
  if (!test) return [];
  const failed = test.cases.filter((c) => c.outcome !== 'passed' && c.outcome !== 'skipped');
  const skipped = test.cases.filter((c) => c.outcome === 'skipped');
  const out = [
    '',
    `Tests: ${test.cases.length - failed.length - skipped.length}/${test.cases.length} passed${skipped.length ? `, ${skipped.length} not run after a failure` : ''}`,
  ];
  // Every failure is named; the diffs of the first few are printed, the rest are in --json.
  failed.forEach((c, i) => {
    out.push(
      `  ${c.required ? 'FAILED' : 'advisory'} ${c.group}/${c.name}: ${c.outcome}${c.message ? ` — ${c.message}` : ''}`,
    );
    if (i < REPORT_DIFFS) out.push(...diffLines(c));
  });
  if (failed.length > REPORT_DIFFS)
    out.push(
      `  (differences shown for the first ${REPORT_DIFFS} of ${failed.length} failures; all of them: --json)`,
    );
  if (skipped.length)
    out.push(`  not run after a failure: ${skipped.map((c) => `${c.group}/${c.name}`).join(', ')}`);
  return out;
}

/** A failed test's differing lines, expected above got. */
function diffLines(c: TestCaseResult): string[] {
  const out: string[] = [];
  for (const d of c.diff) {
    const shown = lineDifference(d);
    const indent = ' '.repeat(String(d.line).length + 5);
    out.push(`    line ${d.line}: expected ${quoteLine(shown.expected, d.escaped)}`);
    out.push(`    ${indent} got      ${quoteLine(shown.got, d.escaped)}`);
    if (shown.description) out.push(`    ${indent} ${shown.description}`);
  }
  return out;
}

function runsSection(result: JudgingResult): string[] {
  const runs = result.stages.measure?.runs;
  if (!runs?.length) return [];
  return [
    '',
    'Runs:',
    '  pair  kind    side           wall        user       sys         RSS    minflt   cpu  evidence',
    ...runs.map((run) => `  ${runLine(run)}`),
  ];
}

function warningsSection(result: JudgingResult): string[] {
  if (!result.warnings.length) return [];
  return ['', 'Warnings:', ...result.warnings.map((w) => `  - ${w}`)];
}

/** Where the judging's own time went, and the host it ran on. */
function footerSection(result: JudgingResult): string[] {
  const stageTimes = Object.entries(result.stageDurationsMs)
    .map(([stage, t]) => `${stage} ${ms(t)}`)
    .join(', ');
  const h = result.host;
  return [
    '',
    `Judging took ${ms(result.durationMs)}: ${stageTimes}`,
    `Host: ${h.cpuModel} (${h.cpuVendor}, ${h.cores} cores), ${h.os}, ${h.compiler}, sandbox ${h.sandbox}, governor ${h.governor ?? 'unknown'}, turbo ${h.turbo ?? 'unknown'}`,
  ];
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
