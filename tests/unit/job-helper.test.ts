// The job helper's report (runner/windows/job-helper.ts): its command line, the report file read
// back, its schema, and its conversion to a SandboxResult (runner/windows/report-to-result.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobHelperReportSchema, type JobHelperReport } from '../../contracts';
import { jobHelperArgs, readJobHelperReport } from '../../runner/windows/job-helper';
import { reportToResult } from '../../runner/windows/report-to-result';

/** What job-helper.exe printed under Wine 8.0 for a clean run (this repo, tests/fixtures/windows). */
const CLEAN: JobHelperReport = jobHelperReportSchema.parse({
  version: 1,
  exitCode: 0,
  exception: null,
  killed: null,
  wallNs: 9056000,
  userUs: 0,
  kernelUs: 0,
  timesFrom: 'process',
  peakWorkingSetBytes: 5181440,
  peakCommitBytes: 684032,
  peakJobCommitBytes: 684032,
  pageFaults: 0,
  processes: { total: 0, maxActive: 1 },
  io: { readOps: 0, writeOps: 0, otherOps: 0, readBytes: 0, writeBytes: 0, otherBytes: 0 },
  qpcFrequency: 10000000,
});
const STREAMS = { stdoutBytes: 3, stdoutSha256: 'x', stderr: '', stderrBytes: 0 };

describe("the job helper's report", () => {
  it('is asked for with the limits, the optional CPU, then the program', () => {
    const limits = {
      wallTimeMs: 2000,
      memoryBytes: 1 << 20,
      processes: 1,
      outputBytes: 10,
      fileBytes: 10,
    };
    expect(jobHelperArgs('r.json', limits, ['prog.exe', 'in.txt'], 3)).toEqual([
      '--report',
      'r.json',
      '--memory',
      '1048576',
      '--processes',
      '1',
      '--time-ms',
      '2000',
      '--cpu',
      '3',
      '--',
      'prog.exe',
      'in.txt',
    ]);
    expect(jobHelperArgs('r.json', limits, ['prog.exe'])).not.toContain('--cpu');
  });

  it('is read back from its file: valid, missing, or not the schema (with what is wrong)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'job-report-'));
    try {
      const file = path.join(dir, 'report.json');
      expect(await readJobHelperReport(file)).toEqual({ report: null, invalid: null });
      await writeFile(file, JSON.stringify(CLEAN));
      expect(await readJobHelperReport(file)).toEqual({ report: CLEAN });
      await writeFile(file, '{"version": 1');
      const broken = await readJobHelperReport(file);
      expect(broken.report).toBeNull();
      expect('invalid' in broken && broken.invalid).toMatch(/expected/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects anything but the exact shape', () => {
    expect(jobHelperReportSchema.safeParse({ ...CLEAN, killed: 'cpu' }).success).toBe(false);
    expect(jobHelperReportSchema.safeParse({ ...CLEAN, extra: 1 }).success).toBe(false);
    expect(jobHelperReportSchema.safeParse({ ...CLEAN, exception: 'a b' }).success).toBe(false);
  });

  it('native: the Windows accounting; context switches are not kept per process', () => {
    const r = reportToResult(
      { ...CLEAN, userUs: 1500, kernelUs: 500, pageFaults: 42 },
      STREAMS,
      null,
    );
    expect(r).toMatchObject({
      exitCode: 0,
      signal: null,
      limitExceeded: null,
      wallTimeMs: 9.056,
      userTimeMs: 1.5,
      sysTimeMs: 0.5,
      maxRssBytes: 5181440,
      minorFaults: 42,
      voluntaryContextSwitches: 0,
    });
  });

  it('emulated: times and faults from the Linux sandbox around Wine (Wine keeps none)', () => {
    const outer = {
      userTimeMs: 30,
      sysTimeMs: 10,
      minorFaults: 900,
      majorFaults: 1,
      voluntaryContextSwitches: 5,
      involuntaryContextSwitches: 2,
      maxRssBytes: 14 << 20,
      limitExceeded: null,
    };
    expect(reportToResult(CLEAN, STREAMS, outer)).toMatchObject({
      userTimeMs: 30,
      sysTimeMs: 10,
      minorFaults: 900,
      wallTimeMs: 9.056,
      maxRssBytes: CLEAN.peakWorkingSetBytes,
    });
    // A run that ended before the helper's first sample: Wine has no peak for it.
    expect(reportToResult({ ...CLEAN, peakWorkingSetBytes: 0 }, STREAMS, outer).maxRssBytes).toBe(
      14 << 20,
    );
    expect(reportToResult({ ...CLEAN, peakWorkingSetBytes: 0 }, STREAMS, null).maxRssBytes).toBe(0);
  });

  it('names exceptions and limits, and lets the sandbox own output stops', () => {
    const crash = reportToResult(
      { ...CLEAN, exitCode: 0xc0000005, exception: 'EXCEPTION_ACCESS_VIOLATION' },
      STREAMS,
      null,
    );
    expect(crash).toMatchObject({
      exitCode: null,
      signal: 'EXCEPTION_ACCESS_VIOLATION',
      limitExceeded: null,
    });
    const memory = reportToResult(
      { ...CLEAN, exitCode: 0xc0000044, killed: 'memory' },
      STREAMS,
      null,
    );
    expect(memory).toMatchObject({
      exitCode: null,
      signal: 'TerminateJobObject',
      limitExceeded: 'memory',
    });
    const exit3 = reportToResult({ ...CLEAN, exitCode: 3 }, STREAMS, null);
    expect(exit3).toMatchObject({ exitCode: 3, signal: null });
    const outer = {
      userTimeMs: 0,
      sysTimeMs: 0,
      minorFaults: 0,
      majorFaults: 0,
      voluntaryContextSwitches: 0,
      involuntaryContextSwitches: 0,
      maxRssBytes: 0,
      limitExceeded: 'output' as const,
    };
    expect(reportToResult({ ...CLEAN, killed: 'time' }, STREAMS, outer).limitExceeded).toBe(
      'output',
    );
  });
});
