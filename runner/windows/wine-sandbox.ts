// The emulated Windows sandbox: the job helper and the program run under Wine, and Wine runs inside
// the Linux bubblewrap sandbox — so untrusted code still has no network, no host files and the
// Linux limits as a backstop, while the Job Object limits and measurements are the adapter's own.
//
//   node ── sandbox-helper ── bwrap (uid 65534) ── init ── wine job-helper.exe ── (Job Object) program.exe
//
// Each run gets a private writable shadow of the master Wine prefix in its run folder (wine-prefix.ts)
// and its own wineserver, which the sandbox's init kills with everything else when the run ends.
import { UnavailableError } from '../../contracts';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_SANDBOX_IDENTITY } from '../sandbox/bubblewrap-sandbox';
import { normalizeRequest } from '../sandbox/request';
import { type Sandbox, type SandboxRequest, type SandboxResult } from '../sandbox/sandbox';
import type { SandboxIdentity } from '../sandbox/work-dir';
import { jobHelperArgs, readJobHelperReport } from './job-helper';
import { jobHelperBinary } from './job-helper-binary';
import { reportToResult } from './report-to-result';
import { unsupportedCounters } from './unsupported-counters';
import { ensureMasterPrefix, shadowPrefix, WINE_ENV, wineVersion } from './wine-prefix';

/** Where the trusted pieces appear inside the sandbox (read-only). */
const HELPER_IN_SANDBOX = '/opt/perfjudge/job-helper.exe';
const MASTER_IN_SANDBOX = '/opt/perfjudge/wine-prefix';
/** Wine's own memory (wineserver, the loader, the helper) on top of the program's limit. */
const WINE_MEMORY_BYTES = 512 * 2 ** 20;
/** wineserver and the helper on top of the program's processes. */
const WINE_PROCESSES = 16;
/** Wine's start (~0.2 s, more on a busy host) before the helper's clock starts. */
const WINE_START_MS = 15_000;
/**
 * Runs tried when Wine itself fails to create the program's process. On a loaded host Wine's
 * CreateProcess now and then fails with ERROR_INTERNAL_ERROR (1359) before the program exists (seen
 * in about 1 of 100 judgings while other tests ran beside them; never reproduced with 200 runs of a
 * plain program): the program never ran, so running it again hides nothing a contestant did.
 */
const WINE_START_ATTEMPTS = 3;
const WINE_INTERNAL_START_FAILURE = /job-helper: cannot start the program \(error 1359\)/;

/** Wine failed to create the program's process: the emulation's fault, before the program ran. */
class WineStartFailure extends UnavailableError {
  override name = 'WineStartFailure';
}

export interface WineSandboxOptions {
  /** The Linux sandbox Wine runs in. */
  linux: Sandbox;
  dataDir: string;
  /** Must be the identity the Linux sandbox runs as (Wine wants to own its prefix). */
  identity?: SandboxIdentity | null;
  helperCacheDir?: string;
  log?: (line: string) => void;
}

export class WineSandbox implements Sandbox {
  readonly kind = 'wine' as const;
  private readonly identity: SandboxIdentity | null;
  private prepared: Promise<{ helper: string; master: string; version: string }> | null = null;

  constructor(private readonly options: WineSandboxOptions) {
    this.identity =
      options.identity !== undefined
        ? options.identity
        : process.getuid?.() === 0
          ? DEFAULT_SANDBOX_IDENTITY
          : null;
  }

  /** Builds the helper and initializes the master prefix once (both are cached on disk). */
  prepare(): Promise<{ helper: string; master: string; version: string }> {
    if (!this.prepared) {
      this.prepared = (async () => {
        const version = await wineVersion();
        if (!version)
          throw new UnavailableError(
            'Wine is not installed (wine --version failed): apt-get install wine wine64',
          );
        const helper = await jobHelperBinary('emulated', { cacheDir: this.options.helperCacheDir });
        const master = await ensureMasterPrefix({
          dataDir: this.options.dataDir,
          identity: this.identity,
          log: this.options.log,
        });
        return { helper, master, version };
      })();
      this.prepared.catch(() => (this.prepared = null));
    }
    return this.prepared;
  }

  async check(): Promise<void> {
    await this.options.linux.check();
    await this.prepare();
  }

  async run(request: SandboxRequest): Promise<SandboxResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(request);
      } catch (error) {
        if (!(error instanceof WineStartFailure) || attempt === WINE_START_ATTEMPTS) throw error;
        this.options.log?.(
          `${error.message.trim()}: Wine's own failure before the program ran; ` +
            `running it again (attempt ${attempt + 1} of ${WINE_START_ATTEMPTS})`,
        );
      }
    }
  }

  private async runOnce(request: SandboxRequest): Promise<SandboxResult> {
    const req = normalizeRequest(request);
    const { helper, master } = await this.prepare();
    const tag = randomBytes(6).toString('hex');
    const prefix = path.join(req.workDir, `.wine-${tag}`);
    const reportFile = path.join(req.workDir, `.job-report-${tag}.json`);
    await shadowPrefix(master, prefix, MASTER_IN_SANDBOX);
    try {
      const outer = await this.options.linux.run({
        command: '/usr/bin/wine',
        // No --cpu: the Linux sandbox pins the whole Wine tree.
        args: [
          HELPER_IN_SANDBOX,
          ...jobHelperArgs(reportFile, req.limits, [req.command, ...req.args]),
        ],
        workDir: req.workDir,
        cwd: req.cwd,
        readOnly: [
          ...req.readOnly,
          { host: helper, sandbox: HELPER_IN_SANDBOX },
          { host: master, sandbox: MASTER_IN_SANDBOX },
        ],
        env: { ...req.env, ...WINE_ENV, WINEPREFIX: prefix },
        stdinFile: req.stdinFile,
        stdout: req.stdout,
        stderrBytes: req.stderrBytes,
        cpu: req.cpu,
        // Wine runs under the same syscall filter as a Linux program (tests/integration/windows-*).
        allowSyscalls: request.allowSyscalls,
        limits: {
          wallTimeMs: req.limits.wallTimeMs + WINE_START_MS,
          memoryBytes: req.limits.memoryBytes + WINE_MEMORY_BYTES,
          processes: req.limits.processes + WINE_PROCESSES,
          outputBytes: req.limits.outputBytes,
          fileBytes: req.limits.fileBytes,
        },
        signal: req.signal,
      });
      const read = await readJobHelperReport(reportFile);
      const streams = {
        stdout: outer.stdout,
        stdoutBytes: outer.stdoutBytes,
        stdoutSha256: outer.stdoutSha256,
        stderr: outer.stderr,
        stderrBytes: outer.stderrBytes,
      };
      if (!read.report) {
        // No report: the Linux sandbox stopped Wine first (its backstop limits), or Wine failed.
        // Memory, processes, output and files are the program's: Wine adds a fixed allowance. Time
        // is not: the helper stops the program at its own limit and reports, so the backstop
        // firing on time means Wine or the helper stalled — the platform's fault (a JUDGE_ERROR,
        // retried), never a time limit for the contestant.
        if (outer.limitExceeded === 'time')
          throw new UnavailableError(
            `Wine did not finish within ${(outer.wallTimeMs / 1000).toFixed(1)} s (the run's limit ` +
              `of ${(req.limits.wallTimeMs / 1000).toFixed(1)} s plus ${WINE_START_MS / 1000} s ` +
              `for Wine) and its job helper left no report: the emulation stalled`,
          );
        if (outer.limitExceeded) return { ...outer, counters: countersFor(req.counters) };
        const Failure =
          outer.exitCode === 126 && WINE_INTERNAL_START_FAILURE.test(outer.stderr)
            ? WineStartFailure
            : UnavailableError;
        throw new Failure(
          `the job helper under Wine left no valid report (exit ${outer.exitCode ?? outer.signal}): ` +
            `${read.invalid ?? outer.stderr.slice(-500)}`,
        );
      }
      const result = reportToResult(read.report, streams, outer);
      return req.counters.length ? { ...result, counters: countersFor(req.counters) } : result;
    } finally {
      await rm(prefix, { recursive: true, force: true }).catch(() => undefined);
      await rm(reportFile, { force: true }).catch(() => undefined);
    }
  }
}

function countersFor(names: string[]) {
  // Under Wine there is no PMU access and no uProf: unsupported, never 0.
  return unsupportedCounters(names);
}
