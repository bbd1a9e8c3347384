// The native Windows sandbox: every untrusted process (the compiler, each run) goes through the job
// helper in a Job Object with the request's limits. Written for real Windows judge hosts; it cannot
// run on the Linux development hosts, where the same helper runs under Wine (wine-sandbox.ts), so
// only the code shared with other sandboxes is exercised here: the helper, its command line and
// report (job-helper.ts), reportToResult, and the output loop of every sandbox (runHelper).
//
// What a Job Object does not give, unlike bubblewrap: a private filesystem view or no network. On a
// judge host, run the runner service as a dedicated low-privilege account whose only writable folder
// is the work root, with outbound traffic blocked by the host firewall (docker/windows/README.md).
import { UnavailableError } from '../../contracts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { normalizeRequest } from '../sandbox/request';
import { abortError } from '../sandbox/result';
import { requestStreams, runHelper } from '../sandbox/run-helper';
import { type Sandbox, type SandboxRequest, type SandboxResult } from '../sandbox/sandbox';
import { jobHelperArgs, readJobHelperReport } from './job-helper';
import { jobHelperBinary } from './job-helper-binary';
import { reportToResult } from './report-to-result';
import { uprofCollectArgs, uprofCounters, uprofEventsFor, type UprofRunner } from './uprof';

/** Time for the helper to start and to write its report after the program's limit. */
const HELPER_SLACK_MS = 10_000;

export interface WindowsJobSandboxOptions {
  helperCacheDir?: string;
  /** AMD uProf's CLI, when installed; counters are 'unsupported' without it. */
  uprof?: UprofRunner | null;
}

export class WindowsJobSandbox implements Sandbox {
  readonly kind = 'windows-job' as const;
  private helper: Promise<string> | null = null;

  constructor(private readonly options: WindowsJobSandboxOptions = {}) {}

  private helperPath(): Promise<string> {
    this.helper ??= jobHelperBinary('native', { cacheDir: this.options.helperCacheDir });
    return this.helper;
  }

  async check(): Promise<void> {
    if (process.platform !== 'win32')
      throw new UnavailableError('the Windows job sandbox runs on Windows hosts only');
    await this.helperPath();
  }

  async run(request: SandboxRequest): Promise<SandboxResult> {
    const req = normalizeRequest(request);
    if (req.signal?.aborted) throw abortError(req.signal);
    const helper = await this.helperPath();
    const reportFile = path.join(req.workDir, `.job-report-${randomBytes(6).toString('hex')}.json`);
    // Mounts are a Linux notion: on Windows the read-only files are used where they are.
    const resolve = (p: string) => req.readOnly.find((m) => m.sandbox === p)?.host ?? p;
    const args = jobHelperArgs(
      reportFile,
      req.limits,
      [resolve(req.command), ...req.args.map(resolve)],
      req.cpu,
    );
    // With uProf, the helper's command line runs under `AMDuProfCLI collect` (UNTESTED: needs a
    // Windows host with uProf); the helper still times the program itself, so timings are unchanged.
    const uprof = this.options.uprof && req.counters.length ? this.options.uprof : null;
    const uprofDir = uprof ? await mkdtemp(path.join(req.workDir, '.uprof-')) : null;
    const [exe, argv] =
      uprof && uprofDir
        ? [
            uprof.cli,
            uprofCollectArgs(uprofEventsFor(req.counters), uprof.interval ?? 250_000, uprofDir, [
              helper,
              ...args,
            ]),
          ]
        : [helper, args];
    const stdin = req.stdinFile ? await open(req.stdinFile, 'r') : null;
    try {
      const streams = await runHelper({
        file: exe,
        args: argv,
        env: { ...req.env, SystemRoot: 'C:\\Windows' },
        cwd: req.cwd,
        ...requestStreams(req, stdin),
        reportOnFd3: false,
        backstopMs: req.limits.wallTimeMs + HELPER_SLACK_MS,
      }).catch((error: Error) => {
        throw new UnavailableError(`cannot start the job helper: ${error.message}`);
      });
      if (streams.aborted) throw abortError(req.signal);
      const { report } = await readJobHelperReport(reportFile);
      if (!report)
        throw new UnavailableError(
          `the job helper left no valid report: ${streams.stderr.slice(-500)}`,
        );
      const result = reportToResult(report, streams, null);
      if (streams.outputExceeded) result.limitExceeded = 'output';
      if (req.counters.length)
        result.counters = await uprofCounters(
          uprof,
          req.counters,
          uprofDir ? { outputDir: uprofDir, program: resolve(req.command) } : undefined,
        );
      return result;
    } finally {
      await stdin?.close();
      await rm(reportFile, { force: true }).catch(() => undefined);
      if (uprofDir) await rm(uprofDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}
