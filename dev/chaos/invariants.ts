// What the chaos drill checks once the platform has settled, and the figures it prints: pure
// functions of what the drill recorded (the database's rows, the services' timed log lines, the
// faults and the health answers), so each rule is tested on its own (tests/unit/chaos-invariants).
import type { JobBenchmark, JudgingResult } from '../../contracts';
import { benchmarkMismatch } from '../../lib/core/challenge/benchmark-definition';
import type { FaultKind } from './plan';

export interface FaultRecord {
  kind: FaultKind;
  /** kill-runner: whose runner. */
  target?: string;
  /** When it struck (Date.now()). */
  at: number;
  /** When what it stopped was back (= at for a Redis flush). */
  until: number;
  detail: string;
}

export interface JudgingRecord {
  id: string;
  submissionId: string;
  target: string;
  status: string;
  verdict: string | null;
  message: string | null;
  /** The stored result, parsed; null when none or unreadable. */
  result: JudgingResult | null;
  /** Run rows stored for it. */
  runRows: number;
}

export interface SubmissionRecord {
  id: string;
  status: string;
  verdict: string | null;
}

export interface TimedLine {
  at: number;
  /** The service and its start: `runner-linux-intel#2`. */
  source: string;
  line: string;
}

export interface HealthSample {
  at: number;
  ms: number;
  /** An answer came (any status) within the drill's patience. */
  answered: boolean;
  ok: boolean;
}

export interface ChaosRecords {
  /** The contest's definition at the start and at the end (they must be the same). */
  definition: { start: JobBenchmark; end: JobBenchmark };
  submissions: SubmissionRecord[];
  judgings: JudgingRecord[];
  /** Every runner's lines; a killed start's in-flight work ends when it was killed. */
  runnerLines: TimedLine[];
  /** When each runner start was killed: source → time. */
  killed: Map<string, number>;
  scorerLines: TimedLine[];
  faults: FaultRecord[];
  health: HealthSample[];
  /** How long after a database fault health may still fail (reconnection). */
  healthGraceMs: number;
  /** A scorer started with another environment said so (null: none was started). */
  secondScorerWarned: boolean | null;
}

export interface ChaosFigures {
  submissions: number;
  judgings: number;
  faults: Partial<Record<FaultKind, number>>;
  /** Judgings a runner started (each start, re-runs included). */
  judgingStarts: number;
  reRuns: number;
  answeredFromOutbox: number;
  lost: number;
  duplicated: number;
  maxHealthOutageMs: number;
}

export interface ChaosVerdict {
  figures: ChaosFigures;
  violations: string[];
}

const START = /job (\S+): attempt \d+ of \d+ on /;
const END = /job (\S+): (?:[A-Z_]+ in [\d.]+ s|handed back|stopped,|not judged:|failed|lock lost)/;
const OUTBOX = /job (\S+): \S+, answered again from the outbox/;
const SCORED = /^\S+ \S+: (.*) → /;

interface Start {
  jobId: string;
  source: string;
  at: number;
  end: number | null;
}

/** Each judging a runner started, with when that start ended (or its runner was killed). */
export function runnerStarts(lines: TimedLine[], killed: Map<string, number>): Start[] {
  const starts: Start[] = [];
  const open = new Map<string, Start>();
  for (const { at, source, line } of lines) {
    const started = START.exec(line);
    if (started) {
      const start = { jobId: started[1]!, source, at, end: null };
      starts.push(start);
      open.set(`${source} ${start.jobId}`, start);
      continue;
    }
    const ended = END.exec(line);
    const start = ended && open.get(`${source} ${ended[1]}`);
    if (start) {
      start.end = at;
      open.delete(`${source} ${ended[1]}`);
    }
  }
  for (const start of open.values()) start.end = killed.get(start.source) ?? null;
  return starts;
}

/** How often the scorers recorded each judging (`<judgingId>:recorded` in a scored line). */
export function recordedCounts(lines: TimedLine[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { line } of lines) {
    const scored = SCORED.exec(line);
    if (!scored) continue;
    for (const token of scored[1]!.split(' ')) {
      const [judgingId, outcome] = token.split(':');
      if (judgingId && outcome === 'recorded')
        counts.set(judgingId, (counts.get(judgingId) ?? 0) + 1);
    }
  }
  return counts;
}

/** Nothing lost: every submission and judging ended, none on a platform fault. */
function checkSettled(records: ChaosRecords, violations: string[]): number {
  let lost = 0;
  for (const s of records.submissions)
    if (s.status !== 'DONE') {
      lost++;
      violations.push(`submission ${s.id} ended ${s.status} ${s.verdict ?? ''}`.trim());
    }
  // A submission the reconciler calls stuck needs an organizer's rejudge: lost to the platform.
  for (const { line } of records.scorerLines)
    if (/cannot finish; rejudge it/.test(line)) violations.push(`the reconciler said: ${line}`);
  for (const j of records.judgings) {
    if (j.status !== 'DONE' && j.status !== 'CANCELLED')
      violations.push(`judging ${j.id} (${j.target}) is still ${j.status}`);
    if (j.verdict === 'JUDGE_ERROR')
      violations.push(`judging ${j.id} (${j.target}) ended JUDGE_ERROR: ${j.message}`);
  }
  return lost;
}

/** Nothing duplicated: one judging per target, recorded at most once, its runs stored once. */
function checkOnce(records: ChaosRecords, targets: number, violations: string[]): number {
  let duplicated = 0;
  for (const s of records.submissions) {
    const n = records.judgings.filter((j) => j.submissionId === s.id).length;
    if (n !== targets) violations.push(`submission ${s.id} has ${n} judgings, not ${targets}`);
  }
  const recorded = recordedCounts(records.scorerLines);
  for (const j of records.judgings) {
    const times = recorded.get(j.id) ?? 0;
    if (times > 1) {
      duplicated++;
      violations.push(`judging ${j.id} (${j.target}) was recorded ${times} times`);
    }
    if (j.status === 'CANCELLED' && times > 0)
      violations.push(`judging ${j.id} was cancelled after a result was recorded`);
    const runs = j.result?.stages.measure?.runs.length ?? 0;
    if (j.status === 'DONE' && j.runRows !== runs)
      violations.push(`judging ${j.id} has ${j.runRows} run rows for ${runs} runs in its result`);
  }
  return duplicated;
}

/** Every recorded result on the contest's one definition, which no process changed. */
function checkDefinition(records: ChaosRecords, violations: string[]): void {
  const { start, end } = records.definition;
  if (JSON.stringify(start) !== JSON.stringify(end))
    violations.push(
      `the contest's definition changed during the drill: ${JSON.stringify(start)} → ${JSON.stringify(end)}`,
    );
  for (const j of records.judgings) {
    if (j.status !== 'DONE') continue;
    if (j.message?.includes('another benchmark input'))
      violations.push(`judging ${j.id} (${j.target}): ${j.message}`);
    const timed = j.result?.benchmark;
    if (j.verdict === 'ACCEPTED' && !timed)
      violations.push(`judging ${j.id} (${j.target}) was accepted without its benchmark input`);
    const mismatch = benchmarkMismatch(timed, start);
    if (mismatch) violations.push(`judging ${j.id} (${j.target}): ${mismatch}`);
  }
  if (records.secondScorerWarned === false)
    violations.push(
      'the scorer started with another environment did not say it differs from the database',
    );
}

/**
 * Whether a fault could cut this start short: a Redis loss takes every job in flight (its lock
 * with it), a runner's kill the jobs that runner held. The scorer's faults and PostgreSQL's do not
 * reach a runner (it has no database), so they explain no re-run.
 */
function cutShort(fault: FaultRecord, start: Start): boolean {
  const inFlight = start.at <= fault.at && (start.end === null || start.end >= fault.at);
  if (!inFlight) return false;
  if (fault.kind === 'redis-flush') return true;
  return fault.kind === 'kill-runner' && start.source.startsWith(`runner-${fault.target}#`);
}

/** Re-runs only of work in flight at a fault that could cut it short. */
function checkReRuns(records: ChaosRecords, violations: string[]): number {
  const starts = runnerStarts(records.runnerLines, records.killed);
  let reRuns = 0;
  const byJob = new Map<string, Start[]>();
  for (const s of starts) byJob.set(s.jobId, [...(byJob.get(s.jobId) ?? []), s]);
  for (const [jobId, all] of byJob)
    for (const again of all.slice(1)) {
      reRuns++;
      const earlier = all.filter((s) => s.at < again.at);
      if (!records.faults.some((f) => earlier.some((s) => cutShort(f, s))))
        violations.push(
          `job ${jobId} was judged again (${again.source}) though no fault cut its judging short`,
        );
    }
  return reRuns;
}

/**
 * Health answered every time; it failed only while PostgreSQL was down (and the grace after),
 * the one store the drill takes away. Returns the longest outage.
 */
function checkHealth(records: ChaosRecords, violations: string[]): number {
  let longest = 0;
  let outageFrom: number | null = null;
  const databaseDown = records.faults.filter((f) => f.kind === 'postgres-restart');
  for (const sample of records.health) {
    if (!sample.answered)
      violations.push(`/api/health did not answer within ${sample.ms} ms at ${iso(sample.at)}`);
    if (sample.ok) {
      if (outageFrom !== null) longest = Math.max(longest, sample.at - outageFrom);
      outageFrom = null;
      continue;
    }
    outageFrom ??= sample.at;
    const explained = databaseDown.some(
      (f) => sample.at >= f.at && sample.at <= f.until + records.healthGraceMs,
    );
    if (!explained) violations.push(`/api/health failed at ${iso(sample.at)}, outside any outage`);
  }
  const last = records.health.at(-1);
  if (outageFrom !== null && last) longest = Math.max(longest, last.at + last.ms - outageFrom);
  return longest;
}

function iso(at: number): string {
  return new Date(at).toISOString();
}

/** Every invariant, and the figures. */
export function judgeChaos(records: ChaosRecords, targets: number): ChaosVerdict {
  const violations: string[] = [];
  const lost = checkSettled(records, violations);
  const duplicated = checkOnce(records, targets, violations);
  checkDefinition(records, violations);
  const reRuns = checkReRuns(records, violations);
  const maxHealthOutageMs = checkHealth(records, violations);
  const faults: ChaosFigures['faults'] = {};
  for (const f of records.faults) faults[f.kind] = (faults[f.kind] ?? 0) + 1;
  return {
    violations,
    figures: {
      submissions: records.submissions.length,
      judgings: records.judgings.length,
      faults,
      judgingStarts: runnerStarts(records.runnerLines, records.killed).length,
      reRuns,
      answeredFromOutbox: records.runnerLines.filter((l) => OUTBOX.test(l.line)).length,
      lost,
      duplicated,
      maxHealthOutageMs,
    },
  };
}

/** The figures as the bench and the test print them, one per line. */
export function formatFigures(figures: ChaosFigures, wallMs: number): string {
  const faults = Object.entries(figures.faults)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return [
    `submissions          ${figures.submissions} (${figures.judgings} judgings)`,
    `faults injected      ${faults || 'none'}`,
    `judgings started     ${figures.judgingStarts}`,
    `re-runs              ${figures.reRuns}`,
    `answered from outbox ${figures.answeredFromOutbox}`,
    `lost                 ${figures.lost}`,
    `duplicated           ${figures.duplicated}`,
    `max health outage    ${(figures.maxHealthOutageMs / 1000).toFixed(1)} s`,
    `wall time            ${(wallMs / 1000).toFixed(1)} s`,
  ].join('\n');
}
