// A runner's host report at start-up: measured in the background under the host lock (so no
// judging on this machine runs meanwhile, and the probe disturbs none), then published with every
// heartbeat for the organizer console, and logged in one line.
import type { HostReport } from '../../contracts';
import type { Challenge } from '../../lib/core/challenge/load-manifest';
import { hostReport } from '../host/doctor';
import { summarizeHostReport } from '../host/format-host-report';
import type { Sandbox } from '../sandbox/sandbox';
import { acquireHostLock } from './host-lock';

export interface HostProbeOptions {
  challenge: Challenge;
  sandbox: Sandbox;
  dataDir: string;
  cpu?: number;
  hostLockFile: string;
  owner: string;
  workRoot?: string;
  onReport: (report: HostReport) => void;
  log: (line: string) => void;
}

export interface HostProbe {
  /** Resolves when the report is published (or the probe gave up). */
  done: Promise<void>;
  /** Abandons the probe (shutdown): it stops waiting for the lock or between runs. */
  stop(): Promise<void>;
}

export function startHostProbe(options: HostProbeOptions): HostProbe {
  const controller = new AbortController();
  const done = (async () => {
    const lock = await acquireHostLock({
      file: options.hostLockFile,
      owner: `${options.owner} (host report)`,
      signal: controller.signal,
    });
    try {
      const report = await hostReport({
        challenge: options.challenge,
        sandbox: options.sandbox,
        dataDir: options.dataDir,
        cpu: options.cpu,
        requirements: false,
        // Truthy, not just defined: an empty path is the default scratch parent, not ''.
        ...(options.workRoot ? { workRoot: options.workRoot } : {}),
        signal: controller.signal,
      });
      if (controller.signal.aborted) return;
      options.onReport(report);
      options.log(summarizeHostReport(report));
    } finally {
      await lock.release();
    }
  })().catch((error: Error) => {
    if (!controller.signal.aborted) options.log(`host report: ${error.message}`);
  });
  return {
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}
