// The measure loop's handling of disturbed pairs, with a scripted sandbox standing in for the runs
// (real input, real reference output): disturbed pairs are discarded and timed again, a host too
// busy for clean pairs is refused as the host's fault, or gives a labelled CPU-time estimate.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DisturbancePolicy, RunPolicy } from '../../contracts';
import { loadChallenge, type Challenge } from '../../lib/core/challenge/load-manifest';
import { ensureInput, referenceSha256 } from '../../lib/core/challenge/inputs';
import { measure } from '../../runner/judge/measure';
import type { Sandbox, SandboxRequest, SandboxResult } from '../../runner/sandbox';

const BENCHMARK = { seed: 'measure-discard', sizeBytes: 64 << 10, rareSeparators: false };
let challenge: Challenge;
let dataDir: string;
let expectedSha: string;

beforeAll(async () => {
  challenge = await loadChallenge('wordcount');
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-measure-discard-'));
  const input = await ensureInput(challenge, BENCHMARK, dataDir);
  expectedSha = await referenceSha256(challenge, input, dataDir);
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/**
 * A sandbox whose runs take 1000 ms (baseline) and 800 ms (solution) of CPU; `disturbed(n)` says
 * whether the n-th timed pair shares its CPU with a busy loop (half the CPU: twice the wall time).
 */
function scriptedSandbox(disturbed: (pair: number) => boolean): Sandbox & { runs: number } {
  let runs = 0;
  return {
    kind: 'bubblewrap',
    runs: 0,
    check: () => Promise.resolve(),
    run(request: SandboxRequest): Promise<SandboxResult> {
      const baseline = request.readOnly?.some((m) => m.host.endsWith('/baseline'));
      const index = runs++;
      // Warm-up is runs 0 and 1; timed pair k is runs 2k + 2 and 2k + 3.
      const pair = index < 2 ? -1 : (index - 2) >> 1;
      const cpuMs = baseline ? 1000 : 800;
      const busy = pair >= 0 && disturbed(pair);
      const wallMs = busy ? cpuMs * 2 : cpuMs;
      this.runs = runs;
      return Promise.resolve({
        exitCode: 0,
        signal: null,
        limitExceeded: null,
        wallTimeMs: wallMs,
        userTimeMs: cpuMs,
        sysTimeMs: 0,
        maxRssBytes: 1 << 20,
        minorFaults: 1,
        majorFaults: 0,
        voluntaryContextSwitches: 0,
        involuntaryContextSwitches: busy ? 200 : 0,
        counters: {
          'task-clock': { value: cpuMs, unit: 'msec', status: 'counted', runningPercent: 100 },
        },
        accounting: {
          cpuBusyMs: wallMs,
          cpuStealMs: 0,
          tasksStarted: 0,
          tickMs: 10,
          residency: [],
        },
        stdoutBytes: 1,
        stdoutSha256: expectedSha,
        stderr: '',
        stderrBytes: 0,
      });
    },
  };
}

async function measureWith(disturbed: (pair: number) => boolean, disturbance: DisturbancePolicy) {
  const sandbox = scriptedSandbox(disturbed);
  const policy: RunPolicy = { warmups: 1, minPairs: 5, maxPairs: 10, precision: 0.01, disturbance };
  const outcome = await measure({
    challenge,
    sandbox,
    baselineBinary: '/judge-test/baseline',
    solutionBinary: '/judge-test/solution',
    identicalBinaries: false,
    benchmark: BENCHMARK,
    dataDir,
    workDir: dataDir,
    policy,
    cpu: 1,
    onProgress: () => undefined,
    log: () => undefined,
  });
  return { ...outcome, timedPairs: (sandbox.runs - 2) / 2 };
}

describe('the measure loop with disturbed pairs', () => {
  it('discards every disturbed pair, times another, and counts them', async () => {
    // Pairs 0, 3, 6, 9 share their CPU with a busy loop; the clean ratios are all exactly 1.25, so
    // the interval is precise at 7 clean pairs (the fewest whose signed-rank interval reaches the
    // judge's 97%, JUDGING_CONFIDENCE), after 11 timed.
    const out = await measureWith((n) => n % 3 === 0, {});
    const m = out.stage;
    expect(out.hostTooBusy).toBeUndefined();
    expect(m.estimate).toMatchObject({ speedup: 1.25, pairs: 7, basis: 'wall-time' });
    expect(m.disturbance).toMatchObject({ discardedPairs: 4, reasons: { 'other-tasks': 4 } });
    expect(out.timedPairs).toBe(11);
    const discarded = m.runs.filter((r) => r.discarded);
    expect(discarded.map((r) => r.pair)).toEqual([0, 0, 3, 3, 6, 6, 9, 9]);
    expect(discarded.every((r) => r.stats.wallMs >= 1600)).toBe(true);
    // Only clean runs make the time summaries.
    expect(m.baseline).toMatchObject({ n: 7, maxMs: 1000 });
    expect(m.cpuTimeEstimate).toMatchObject({ speedup: 1.25, basis: 'cpu-time' });
    expect(out.warnings.join('\n')).toMatch(/disturbed runs: 4 pairs \(other-tasks 4\) discarded/);
  });

  it('refuses, as the host’s fault, when the host is busy all the time', async () => {
    const out = await measureWith(() => true, {});
    expect(out.hostTooBusy).toMatch(
      /the judge host was too busy.*queue retries it later; run a local judging again/,
    );
    expect(out.hostTooBusy).toMatch(/more than half of them/);
    expect(out.stage.estimate).toBeNull();
    expect(out.stage.disturbance?.tooBusy).toBe(true);
    // The discard budget (maxPairs) was spent before any pair was clean.
    expect(out.timedPairs).toBe(10);
    // Kept for the record: the CPU times of every pair.
    expect(out.stage.cpuTimeEstimate).toMatchObject({ speedup: 1.25, basis: 'cpu-time' });
  });

  it('gives a labelled CPU-time estimate instead where the manifest allows it', async () => {
    const out = await measureWith(() => true, { cpuTimeFallback: true });
    expect(out.hostTooBusy).toBeUndefined();
    // The basis says CPU time, and so does the method's name.
    expect(out.stage.estimate).toMatchObject({
      speedup: 1.25,
      basis: 'cpu-time',
      method: 'signed-rank-hodges-lehmann-of-cpu-time-log-ratios',
    });
    expect(out.warnings.join('\n')).toMatch(/estimated from CPU time instead/);
  });

  it('stops early on a host busy all the time when the budget is larger', async () => {
    const out = await measureWith(() => true, { maxDiscardedPairs: 100 });
    expect(out.hostTooBusy).toBeDefined();
    // 4 × minPairs attempts, none clean: confidently under half.
    expect(out.timedPairs).toBe(20);
  });

  it('says it was the discard budget when half the pairs were clean but too few for minPairs', async () => {
    // Pairs 1 and 3 disturbed: the budget of 2 is spent with 2 clean pairs, minPairs is 5.
    const out = await measureWith((n) => n % 2 === 1, { maxDiscardedPairs: 2 });
    expect(out.hostTooBusy).toMatch(/within the discard budget/);
    expect(out.hostTooBusy).not.toMatch(/more than half/);
    expect(out.timedPairs).toBe(4);
  });

  it('refuses a host that leaves only a quarter of its pairs clean, though they would be enough', async () => {
    // Every fourth pair is clean: 5 clean of 20 at the first look, confidently under half; one
    // more clean pair would have met the precision (all clean ratios are 1.25).
    const out = await measureWith((n) => n % 4 !== 0, { maxDiscardedPairs: 100 });
    expect(out.hostTooBusy).toMatch(/more than half of them/);
    expect(out.stage.estimate).toBeNull();
    expect(out.timedPairs).toBe(20);
  });
});
