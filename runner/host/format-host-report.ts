// The host report as text: a line per check with its verdict, the fix under anything not ok, and a
// one-line summary for logs.
import type { HostCheck, HostReport } from '../../contracts';

const GROUPS: Record<HostCheck['group'], string> = {
  timing: 'Timing (what makes measurements noisy)',
  memory: "Memory (the benchmark definition's host conditions)",
  requirements: "Requirements (the judge's tools)",
};
const LABEL: Record<HostCheck['verdict'], string> = {
  ok: '  ok   ',
  warn: ' warn  ',
  bad: '  BAD  ',
  unknown: 'unknown',
};

export function formatHostReport(report: HostReport): string {
  const lines: string[] = [];
  for (const group of Object.keys(GROUPS) as HostCheck['group'][]) {
    const checks = report.checks.filter((c) => c.group === group);
    if (!checks.length) continue;
    lines.push(GROUPS[group]);
    for (const c of checks) {
      lines.push(`  [${LABEL[c.verdict]}] ${c.title}: ${c.detail}`);
      if (c.fix && c.verdict !== 'ok') lines.push(`             fix: ${c.fix}`);
    }
    lines.push('');
  }
  const counts = (['bad', 'warn', 'unknown'] as const)
    .map((v) => [v, report.checks.filter((c) => c.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${v}`);
  lines.push(
    `Verdict: ${report.verdict}${counts.length ? ` (${counts.join(', ')})` : ''}; CPU ${report.cpu ?? '?'}`,
  );
  return `${lines.join('\n')}\n`;
}

/** "noise: wall CV 3.1%, utilization 0.98; warn: governor, turbo" for a runner's log. */
export function summarizeHostReport(report: HostReport): string {
  const noise = report.noise
    ? `wall CV ${(report.noise.wallCv * 100).toFixed(1)}%, utilization ${report.noise.utilization.toFixed(2)}, ` +
      `other tasks ${report.noise.otherTasksMs.toFixed(0)} ms/run over ${report.noise.runs} runs`
    : 'not measured';
  const flagged = report.checks
    .filter((c) => c.verdict === 'bad' || c.verdict === 'warn')
    .map((c) => `${c.id} ${c.verdict}`);
  return `host report (CPU ${report.cpu}): ${report.verdict}; noise ${noise}${flagged.length ? `; ${flagged.join(', ')}` : ''}`;
}
